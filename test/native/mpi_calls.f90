! Fortran (use mpi) calls whose arguments the MPI layer must convert, for test/mpi-fortran.test.ts:
! 1-based indices of Waitany / Testany / Waitsome / Testsome, MPI_STATUS(ES)_IGNORE, persistent
! requests, a non-blocking collective, MPI_IN_PLACE, one-sided Put / Get, a communicator, and
! MPI_Init_thread. Per rank (N ranks in a ring):
!   Waitany 3 x 8 B, Waitsome 2 x 8 B, Testany 4 B, Testsome 4 B, persistent 2 x 32 B, Put 4 B
!     => sent to all nodes 10 values, 116 B
!   the same received (Get 4 B in place of Put) => received from all nodes 10 values, 116 B
!   Allreduce in place 3 doubles (24 B), Iallreduce 1 double (8 B) => all-reduce 2 values, 32 B
!   Gather of 2 integers (the root in place) => gather 1 value, 8 B
program mpi_calls
  use mpi
  implicit none
  integer :: ierr, provided, rank, nranks, nxt, prv, i, idx, done, outcount, half, win
  integer :: st(MPI_STATUS_SIZE), rr(3), sr(3), pr(2), which(3), ivals(2, 2), iouts(2, 2)
  integer :: one, got, g(2), allg(128), wbuf(4)
  logical :: flag
  double precision :: din(3), dout(3), p(4), q(4), v(3), x, y
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nxt = mod(rank + 1, nranks)
  prv = mod(rank + nranks - 1, nranks)

  ! Waitany: three receives of one double, completed one at a time, status ignored.
  dout = (/ 1d0, 2d0, 3d0 /)
  do i = 1, 3
    call MPI_Irecv(din(i), 1, MPI_DOUBLE_PRECISION, prv, 10 + i, MPI_COMM_WORLD, rr(i), ierr)
  end do
  do i = 1, 3
    call MPI_Isend(dout(i), 1, MPI_DOUBLE_PRECISION, nxt, 10 + i, MPI_COMM_WORLD, sr(i), ierr)
  end do
  do i = 1, 3
    call MPI_Waitany(3, rr, idx, MPI_STATUS_IGNORE, ierr)
    if (idx < 1 .or. idx > 3) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end do
  call MPI_Waitall(3, sr, MPI_STATUSES_IGNORE, ierr)

  ! Waitsome: two receives of two integers.
  ivals = rank
  do i = 1, 2
    call MPI_Irecv(iouts(1, i), 2, MPI_INTEGER, prv, 20 + i, MPI_COMM_WORLD, rr(i), ierr)
  end do
  do i = 1, 2
    call MPI_Isend(ivals(1, i), 2, MPI_INTEGER, nxt, 20 + i, MPI_COMM_WORLD, sr(i), ierr)
  end do
  done = 0
  do while (done < 2)
    call MPI_Waitsome(2, rr, outcount, which, MPI_STATUSES_IGNORE, ierr)
    done = done + outcount
  end do
  call MPI_Waitall(2, sr, MPI_STATUSES_IGNORE, ierr)

  ! Testany, then Testsome: one integer each; their sends completed by MPI_Wait.
  one = rank
  flag = .false.
  call MPI_Irecv(got, 1, MPI_INTEGER, prv, 30, MPI_COMM_WORLD, rr(1), ierr)
  call MPI_Isend(one, 1, MPI_INTEGER, nxt, 30, MPI_COMM_WORLD, sr(1), ierr)
  do while (.not. flag)
    call MPI_Testany(1, rr, idx, flag, st, ierr)
  end do
  call MPI_Wait(sr(1), st, ierr)
  outcount = 0
  call MPI_Irecv(got, 1, MPI_INTEGER, prv, 31, MPI_COMM_WORLD, rr(1), ierr)
  call MPI_Isend(one, 1, MPI_INTEGER, nxt, 31, MPI_COMM_WORLD, sr(1), ierr)
  do while (outcount < 1)
    call MPI_Testsome(1, rr, outcount, which, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Wait(sr(1), MPI_STATUS_IGNORE, ierr)
  if (got /= prv) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)

  ! Persistent requests: four doubles each way, started twice.
  p = 1d0
  ! The receive second: its status is the second of MPI_Waitall's array.
  call MPI_Send_init(p, 4, MPI_DOUBLE_PRECISION, nxt, 40, MPI_COMM_WORLD, pr(1), ierr)
  call MPI_Recv_init(q, 4, MPI_DOUBLE_PRECISION, prv, 40, MPI_COMM_WORLD, pr(2), ierr)
  do i = 1, 2
    call MPI_Startall(2, pr, ierr)
    call MPI_Waitall(2, pr, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Request_free(pr(1), ierr)
  call MPI_Request_free(pr(2), ierr)

  ! Collectives: Allreduce in place, a non-blocking Iallreduce, a Gather whose root is in place.
  v = 1d0
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (v(1) /= nranks) call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  x = 1d0
  call MPI_Iallreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, rr(1), ierr)
  call MPI_Wait(rr(1), MPI_STATUS_IGNORE, ierr)
  g = rank
  if (rank == 0) then
    allg(1:2) = g
    call MPI_Gather(MPI_IN_PLACE, 2, MPI_INTEGER, allg, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Gather(g, 2, MPI_INTEGER, allg, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if

  ! One-sided: Put one integer to the next rank, Get one from the previous.
  wbuf = 0
  wsize = 16
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(one, 1, MPI_INTEGER, nxt, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Get(got, 1, MPI_INTEGER, prv, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
end program mpi_calls
