C     A Fortran 77 MPI program (include 'mpif.h') for test/mpi-fortran.test.ts. Per rank:
C       MPI_SEND 2 x 4 integers (16 B), MPI_RECV 2 (status ignored),
C       MPI_ALLREDUCE 3 x 1 integer (4 B), MPI_BARRIER 1
C       => sent: 2 messages, 32 B; received: 2 messages, 32 B
      PROGRAM MPIF77
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NRANKS, NXT, PRV, I, A(4), B(4), X, Y
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NRANKS, IERR)
      NXT = MOD(RANK + 1, NRANKS)
      PRV = MOD(RANK + NRANKS - 1, NRANKS)
      DO 10 I = 1, 2
        IF (MOD(RANK, 2) .EQ. 0) THEN
          CALL MPI_SEND(A, 4, MPI_INTEGER, NXT, 1, MPI_COMM_WORLD, IERR)
          CALL MPI_RECV(B, 4, MPI_INTEGER, PRV, 1, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
        ELSE
          CALL MPI_RECV(B, 4, MPI_INTEGER, PRV, 1, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
          CALL MPI_SEND(A, 4, MPI_INTEGER, NXT, 1, MPI_COMM_WORLD, IERR)
        END IF
   10 CONTINUE
      X = RANK
      DO 20 I = 1, 3
        CALL MPI_ALLREDUCE(X, Y, 1, MPI_INTEGER, MPI_SUM,
     &                     MPI_COMM_WORLD, IERR)
   20 CONTINUE
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
