! A Fortran MPI program (use mpi) with known traffic, for test/mpi-fortran.test.ts. Per rank:
!   MPI_Send 4 x 10 doubles (80 B), MPI_Recv 4 (status array), MPI_Isend 2 x 5 integers (20 B),
!   MPI_Irecv 2 (completed by MPI_Waitall, statuses ignored), MPI_Waitall 2, MPI_Allreduce 6 x 1
!   double (8 B), MPI_Bcast 1 x 3 integers (12 B), MPI_Barrier 2
!   => sent to all nodes: 6 messages, 360 B; received from all nodes: 6 messages, 360 B
program mpi_app
  use mpi
  implicit none
  integer :: ierr, rank, nranks, nxt, prv, i
  integer :: st(MPI_STATUS_SIZE), reqs(2), a(5), b(5), c(3)
  double precision :: d(10), e(10), x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nxt = mod(rank + 1, nranks)
  prv = mod(rank + nranks - 1, nranks)
  d = 1.0d0
  a = rank
  do i = 1, 4
    if (mod(rank, 2) == 0) then
      call MPI_Send(d, 10, MPI_DOUBLE_PRECISION, nxt, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(e, 10, MPI_DOUBLE_PRECISION, prv, 1, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(e, 10, MPI_DOUBLE_PRECISION, prv, 1, MPI_COMM_WORLD, st, ierr)
      call MPI_Send(d, 10, MPI_DOUBLE_PRECISION, nxt, 1, MPI_COMM_WORLD, ierr)
    end if
  end do
  do i = 1, 2
    call MPI_Irecv(b, 5, MPI_INTEGER, prv, 2, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(a, 5, MPI_INTEGER, nxt, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  end do
  x = rank
  do i = 1, 6
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  c = 7
  call MPI_Bcast(c, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program mpi_app
