! MPI-IO from Fortran (use mpi), for test/mpi-io.test.ts: every rank writes 100 integers (400 B) to
! a file of its own at offset 0 and again at 400 (MPI_File_write_at twice), reads the first 100
! back (MPI_File_read_at) and checks them. The file name is a CHARACTER argument, whose hidden
! length the layer's wrapper passes on. `mpi_io_f DIR`.
! EXPECTED per rank: MPI_File_open 1, MPI_File_write_at 2, MPI_File_read_at 1, MPI_File_close 1;
!   MPI-IO Bytes Written: 2 values, 800 B; MPI-IO Bytes Read: 1 value, 400 B
program mpi_io_f
  use mpi
  implicit none
  integer :: ierr, rank, fh, i
  integer :: buf(100), back(100)
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=4096) :: dir
  character(len=4200) :: path
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, dir)
  write (path, '(A,A,I0)') trim(dir), '/frank.', rank
  do i = 1, 100
    buf(i) = rank * 1000 + i
  end do
  call MPI_File_open(MPI_COMM_SELF, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  off = 0
  call MPI_File_write_at(fh, off, buf, 100, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  off = 400
  call MPI_File_write_at(fh, off, buf, 100, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  off = 0
  call MPI_File_read_at(fh, off, back, 100, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  if (any(back /= buf)) then
    print *, 'mpi_io_f: rank', rank, 'reads back differently'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  print '(A,I0,A)', 'rank ', rank, ' ok'
  call MPI_Finalize(ierr)
end program mpi_io_f
