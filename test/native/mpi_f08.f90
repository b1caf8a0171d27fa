! A `use mpi_f08` program (Fortran 2008 bindings) with known traffic, for test/mpi-fortran.test.ts.
! Ring neighbours; ierror given to some calls and left out of others (it is optional in mpi_f08).
! EXPECTED per rank: MPI_Init 1, MPI_Send 3 x 4 doubles (32 B), MPI_Recv 3 (32 B each; one with a
!   status, two with MPI_STATUS_IGNORE), MPI_Isend 2 x 2 doubles (16 B), MPI_Irecv 2 (16 B each,
!   completed by MPI_Wait), MPI_Wait 4, MPI_Allreduce 2 x 4 doubles (32 B), MPI_Bcast 1 x 3 doubles
!   (24 B), MPI_Reduce 1 x 2 integers (8 B), MPI_Barrier 2, MPI_Finalize 1
!   => sent to all nodes: 5 messages, 128 B; received from all nodes: 5 messages, 128 B
program mpi_f08_app
  use mpi_f08
  implicit none
  integer :: rank, n, ierr, i, next, prev
  integer :: ia(2), ib(2)
  double precision :: x(4), y(4)
  type(MPI_Request) :: req(4)
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  next = mod(rank + 1, n)
  prev = mod(rank + n - 1, n)
  x = rank
  ia = rank
  do i = 1, 3
    call MPI_Send(x, 4, MPI_DOUBLE_PRECISION, next, i, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Recv(y, 4, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, st, ierr)
  if (st%MPI_SOURCE /= prev) stop 2
  call MPI_Recv(y, 4, MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Recv(y, 4, MPI_DOUBLE_PRECISION, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Irecv(y, 2, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, req(1))
  call MPI_Irecv(y(3), 2, MPI_DOUBLE_PRECISION, prev, 8, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Isend(x, 2, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, req(3))
  call MPI_Isend(x(3), 2, MPI_DOUBLE_PRECISION, next, 8, MPI_COMM_WORLD, req(4))
  do i = 1, 4
    call MPI_Wait(req(i), MPI_STATUS_IGNORE)
  end do
  if (y(1) /= prev) stop 3
  call MPI_Allreduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(x, 3, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call MPI_Reduce(ia, ib, 2, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  print '(A,I0,A)', 'rank ', rank, ' ok'
  call MPI_Finalize()
end program mpi_f08_app
