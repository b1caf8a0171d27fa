#!/usr/bin/env node
// Writes the PMPI wrappers of the MPI layer from the table below:
//   native/mpi/mpi_events.h  the event of each wrapped call (enum and TAU's timer names)
//   native/mpi/wrappers.c    a C wrapper (MPI_Send) and a Fortran one (mpi_send_ and its other
//                            spellings) for every call not marked [manual]
// Both outputs are committed; run `node scripts/gen-mpi-wrappers.mjs` after changing the table.
// The calls written by hand (Init, Finalize, Abort, the Wait / Test family, Start, Request_free) are in
// native/mpi/calls.c; they appear here as [manual] so that their events are in the one enum.
//
// A line: `<Name>(<C parameters as in the MPI-3 standard>) => <accounting> [flags]`.
//   accounting  C statements run after the call succeeded, over the parameters' C values (empty: the
//               call is timed only). Fortran wrappers convert the arguments it names to C first.
//   [status]        the last parameter is a status: MPI_STATUS_IGNORE is replaced by a local status
//                   and the bytes received are counted from it (hp_acc_received)
//   [recv]          `*request` is a receive request: its bytes are counted when it completes
//   [recv-persist]  the same for a persistent receive (Recv_init)
//   [send-persist]  a persistent send: its bytes are counted at each MPI_Start
//   [io-read]       an MPI-IO read of count × datatype: its bytes and, blocking, its bandwidth (io.c).
//                   A split collective's _begin counts the bytes, with no bandwidth (the transfer may
//                   run until its _end, which is timed only), as a non-blocking call (with a request)
//   [io-write]      the same for a write
//   [f08]           also a wrapper of the `use mpi_f08` entry (mpi_send_f08_): gfortran passes choice
//                   buffers of Open MPI's mpi_f08 as plain addresses and handles as their one
//                   integer, as the mpif.h entry; ierror is optional (NULL when absent)
//   [manual]        written by hand in calls.c (only the event comes from here)
//   pre{...}        C statements run before the call: the trace's records that belong before it (a
//                   send, a collective's begin; native/mpi/tracing.c)
//   post{...}       C statements run after the call whatever it returned, with `rc`: the trace's
//                   records that belong after it (a receive, a collective's end). In Fortran wrappers
//                   both see the arguments they name converted to C (a pointer argument as the
//                   address of its C value) and run only while a trace is recorded (hp_tr_on).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TABLE = `
Init(int *argc, char ***argv) => [manual]
Init_thread(int *argc, char ***argv, int required, int *provided) => [manual]
Finalize(void) => [manual]
Abort(MPI_Comm comm, int errorcode) => [manual]

Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) => hp_acc_sent_to(count, datatype, dest, comm); pre{hp_tr_send(dest, tag, comm, count, datatype);} [f08]
Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) => hp_acc_sent_to(count, datatype, dest, comm); pre{hp_tr_send(dest, tag, comm, count, datatype);}
Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) => hp_acc_sent_to(count, datatype, dest, comm); pre{hp_tr_send(dest, tag, comm, count, datatype);}
Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) => hp_acc_sent_to(count, datatype, dest, comm); pre{hp_tr_send(dest, tag, comm, count, datatype);}
Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) => [status] post{if (rc == MPI_SUCCESS) hp_tr_recv(status, comm);} [f08]
Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) => hp_acc_sent_to(sendcount, sendtype, dest, comm); [status] pre{hp_tr_send(dest, sendtag, comm, sendcount, sendtype);} post{if (rc == MPI_SUCCESS) hp_tr_recv(status, comm);}
Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) => hp_acc_sent_to(count, datatype, dest, comm); [status] pre{hp_tr_send(dest, sendtag, comm, count, datatype);} post{if (rc == MPI_SUCCESS) hp_tr_recv(status, comm);}
Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) =>
Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) =>
Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) =>
Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) =>
Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status) => [status]
Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request) => [recv]

Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) => hp_acc_sent_to(count, datatype, dest, comm); post{if (rc == MPI_SUCCESS) hp_tr_isend(dest, tag, comm, count, datatype, *request);} [f08]
Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) => hp_acc_sent_to(count, datatype, dest, comm); post{if (rc == MPI_SUCCESS) hp_tr_isend(dest, tag, comm, count, datatype, *request);}
Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) => hp_acc_sent_to(count, datatype, dest, comm); post{if (rc == MPI_SUCCESS) hp_tr_isend(dest, tag, comm, count, datatype, *request);}
Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) => hp_acc_sent_to(count, datatype, dest, comm); post{if (rc == MPI_SUCCESS) hp_tr_isend(dest, tag, comm, count, datatype, *request);}
Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) => [recv] post{if (rc == MPI_SUCCESS) hp_tr_irecv(comm, *request);} [f08]
Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) => [send-persist]
Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) => [recv-persist]
Start(MPI_Request *request) => [manual]
Startall(int count, MPI_Request array_of_requests[]) => [manual]
Request_free(MPI_Request *request) => [manual]
Cancel(MPI_Request *request) =>

Wait(MPI_Request *request, MPI_Status *status) => [manual]
Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) => [manual]
Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status) => [manual]
Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) => [manual]
Test(MPI_Request *request, int *flag, MPI_Status *status) => [manual]
Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) => [manual]
Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status) => [manual]
Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]) => [manual]

Barrier(MPI_Comm comm) => pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_BARRIER, comm, -1, 0, 0);} [f08]
Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) => hp_acc_bcast(count, datatype); hp_cm_bcast(count, datatype, root, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_BCAST, comm, root, hp_tr_is_root(root, comm) ? hp_bytes(count, datatype) * (hp_tr_comm_size(comm) - 1) : 0, hp_tr_is_root(root, comm) ? 0 : hp_bytes(count, datatype));} [f08]
Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) => hp_acc_reduce(count, datatype); hp_cm_to_root(hp_bytes(count, datatype), root, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_REDUCE, comm, root, hp_bytes(count, datatype), hp_tr_is_root(root, comm) ? hp_bytes(count, datatype) * hp_tr_comm_size(comm) : 0);} [f08]
Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) => hp_acc_allreduce(count, datatype); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_ALLREDUCE, comm, -1, hp_bytes(count, datatype), hp_bytes(count, datatype));} [f08]
Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) => hp_acc_gather(sendbuf, sendcount, sendtype, recvcount, recvtype); hp_cm_to_root(hp_bytes(sendcount, sendtype), root, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_GATHER, comm, root, hp_bytes(sendcount, sendtype), hp_tr_is_root(root, comm) ? hp_bytes(recvcount, recvtype) * hp_tr_comm_size(comm) : 0);}
Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) => hp_acc_gather(sendbuf, sendcount, sendtype, 0, recvtype); hp_cm_to_root(hp_bytes(sendcount, sendtype), root, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_GATHERV, comm, root, hp_bytes(sendcount, sendtype), 0);}
Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) => hp_acc_scatter(recvbuf, sendcount, sendtype, recvcount, recvtype); hp_cm_scatter(sendcount, sendtype, root, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_SCATTER, comm, root, hp_tr_is_root(root, comm) ? hp_bytes(sendcount, sendtype) * hp_tr_comm_size(comm) : 0, hp_bytes(recvcount, recvtype));}
Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) => hp_acc_scatter(recvbuf, 0, sendtype, recvcount, recvtype); hp_cm_scatterv(sendcounts, sendtype, root, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_SCATTERV, comm, root, 0, hp_bytes(recvcount, recvtype));}
Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) => hp_acc_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_ALLGATHER, comm, -1, hp_bytes(sendcount, sendtype), hp_bytes(recvcount, recvtype) * hp_tr_comm_size(comm));}
Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) => hp_acc_allgather(sendbuf, sendcount, sendtype, 0, recvtype); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_ALLGATHERV, comm, -1, hp_bytes(sendcount, sendtype), 0);}
Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) => hp_acc_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); hp_cm_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_ALLTOALL, comm, -1, hp_bytes(sendcount, sendtype) * hp_tr_comm_size(comm), hp_bytes(recvcount, recvtype) * hp_tr_comm_size(comm));}
Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) => hp_acc_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm); hp_cm_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_ALLTOALLV, comm, -1, 0, 0);}
Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) => hp_acc_reduce_scatter(recvcounts, datatype, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_REDUCE_SCATTER, comm, -1, 0, 0);}
Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) => hp_acc_reduce_scatter_block(recvcount, datatype, comm); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_REDUCE_SCATTER_BLOCK, comm, -1, hp_bytes(recvcount, datatype) * hp_tr_comm_size(comm), hp_bytes(recvcount, datatype));}
Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) => hp_acc_scan(count, datatype); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_SCAN, comm, -1, hp_bytes(count, datatype), hp_bytes(count, datatype));}
Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) => hp_acc_scan(count, datatype); pre{hp_tr_coll_begin();} post{if (hp_tr_on()) hp_tr_coll_end(HP_COLL_EXSCAN, comm, -1, hp_bytes(count, datatype), hp_bytes(count, datatype));}

Ibarrier(MPI_Comm comm, MPI_Request *request) =>
Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request) => hp_acc_bcast(count, datatype); hp_cm_bcast(count, datatype, root, comm);
Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) => hp_acc_reduce(count, datatype); hp_cm_to_root(hp_bytes(count, datatype), root, comm);
Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) => hp_acc_allreduce(count, datatype);
Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) => hp_acc_gather(sendbuf, sendcount, sendtype, recvcount, recvtype); hp_cm_to_root(hp_bytes(sendcount, sendtype), root, comm);
Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) => hp_acc_gather(sendbuf, sendcount, sendtype, 0, recvtype); hp_cm_to_root(hp_bytes(sendcount, sendtype), root, comm);
Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) => hp_acc_scatter(recvbuf, sendcount, sendtype, recvcount, recvtype); hp_cm_scatter(sendcount, sendtype, root, comm);
Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) => hp_acc_scatter(recvbuf, 0, sendtype, recvcount, recvtype); hp_cm_scatterv(sendcounts, sendtype, root, comm);
Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) => hp_acc_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype);
Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) => hp_acc_allgather(sendbuf, sendcount, sendtype, 0, recvtype);
Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) => hp_acc_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); hp_cm_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) => hp_acc_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm); hp_cm_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm);
Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) => hp_acc_reduce_scatter(recvcounts, datatype, comm);
Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) => hp_acc_reduce_scatter_block(recvcount, datatype, comm);
Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) => hp_acc_scan(count, datatype);
Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) => hp_acc_scan(count, datatype);

Comm_rank(MPI_Comm comm, int *rank) =>
Comm_size(MPI_Comm comm, int *size) =>
Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) => post{if (rc == MPI_SUCCESS) hp_tr_comm_new(*newcomm);}
Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) => post{if (rc == MPI_SUCCESS) hp_tr_comm_new(*newcomm);}
Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) => post{if (rc == MPI_SUCCESS) hp_tr_comm_new(*newcomm);}
Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) => post{if (rc == MPI_SUCCESS) hp_tr_comm_new(*newcomm);}
Comm_free(MPI_Comm *comm) => pre{hp_tr_comm_free(*comm);}
Cart_create(MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart) => post{if (rc == MPI_SUCCESS) hp_tr_comm_new(*comm_cart);}

File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) =>
File_close(MPI_File *fh) =>
File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-read]
File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-read]
File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-read]
File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-read]
File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-write]
File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-write]
File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-write]
File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-write]
File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-read]
File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-write]
File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-read]
File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-write]
File_seek(MPI_File fh, MPI_Offset offset, int whence) =>
File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info) =>
File_sync(MPI_File fh) =>
File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-read]
File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-write]
File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-read]
File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) => [io-write]
File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) =>
File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-read]
File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-write]
File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-read]
File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-write]
File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-read]
File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) => [io-write]
File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) => [io-read]
File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) =>
File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) => [io-write]
File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) =>
File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype) => [io-read]
File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) =>
File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype) => [io-write]
File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) =>
File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) => [io-read]
File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) =>
File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) => [io-write]
File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) =>

Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) =>
Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) =>
Win_free(MPI_Win *win) =>
Win_fence(int assert, MPI_Win win) =>
Win_lock(int lock_type, int rank, int assert, MPI_Win win) =>
Win_unlock(int rank, MPI_Win win) =>
Win_lock_all(int assert, MPI_Win win) =>
Win_unlock_all(MPI_Win win) =>
Win_flush(int rank, MPI_Win win) =>
Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) => hp_acc_sent(origin_count, origin_datatype);
Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) => hp_acc_received_bytes(hp_bytes(origin_count, origin_datatype));
Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) => hp_acc_sent(origin_count, origin_datatype);
`;

/** One table line → { name, params: [{ type, name, array }], account, flags }. */
function parse(line) {
  const m = /^(\w+)\((.*)\)\s*=>\s*(.*)$/.exec(line.trim());
  if (!m) throw new Error(`bad line: ${line}`);
  const [, name, plist, all] = m;
  const pre = /pre\{([^}]*)\}/.exec(all)?.[1].trim() ?? '';
  const post = /post\{([^}]*)\}/.exec(all)?.[1].trim() ?? '';
  const rest = all.replace(/(pre|post)\{[^}]*\}/g, '');
  const flags = [...rest.matchAll(/\[([a-z0-9-]+)\]/g)].map((x) => x[1]);
  const account = rest.replace(/\[[a-z0-9-]+\]/g, '').trim();
  const params =
    plist.trim() === 'void'
      ? []
      : plist.split(',').map((p) => {
          const pm = /^(.*?)(\w+)(\[\])?$/.exec(p.trim());
          if (!pm) throw new Error(`bad parameter ${p} in ${name}`);
          return { type: pm[1].trim(), name: pm[2], array: !!pm[3] };
        });
  return { name, params, account, flags, pre, post };
}

const calls = TABLE.split('\n')
  .filter((l) => l.trim() && !l.trim().startsWith('#'))
  .map(parse);

const cDecl = (p) => `${p.type}${p.type.endsWith('*') ? '' : ' '}${p.name}${p.array ? '[]' : ''}`;
/** A CHARACTER argument (a file name, a data representation): Fortran passes its length after the
 * other arguments (hidden), which the wrapper takes and passes on. */
const isString = (p) => p.type === 'const char *';
const hiddenLengths = (c) => c.params.filter(isString).map((p) => `size_t f_${p.name}_len`);
const hiddenArgs = (c) => c.params.filter(isString).map((p) => `f_${p.name}_len`);
const isBuffer = (p) => /void \*$/.test(p.type) && !p.array && !/baseptr/.test(p.name);

/** Fortran passes everything by reference: buffers as they are, MPI_Aint as an address-sized integer,
 * everything else (integers, handles, statuses, arrays of them) as MPI_Fint. */
function fortranType(p) {
  if (isBuffer(p) || p.name === 'baseptr') return 'void *';
  if (p.type === 'MPI_Aint') return 'MPI_Aint *';
  if (p.type === 'MPI_Offset') return 'MPI_Offset *';
  if (isString(p)) return 'char *';
  return 'MPI_Fint *';
}

/** The C value of a Fortran argument, for the accounting. */
function fortranToC(p) {
  const f = `f_${p.name}`;
  if (isBuffer(p)) return `hp_mpi_fbuf(${f})`;
  if (p.array && /int/.test(p.type)) return `(const int *)${f}`;
  switch (p.type) {
    case 'int':
      return `(int)*${f}`;
    case 'MPI_Datatype':
      return `PMPI_Type_f2c(*${f})`;
    case 'MPI_Comm':
      return `PMPI_Comm_f2c(*${f})`;
    case 'MPI_Aint':
      return `*${f}`;
    default:
      throw new Error(`no Fortran conversion for ${p.type} ${p.name}`);
  }
}

const used = (c) => c.params.filter((p) => new RegExp(`\\b${p.name}\\b`).test(c.account));
const usedIn = (c, code) => c.params.filter((p) => new RegExp(`\\b${p.name}\\b`).test(code));

/** The C value of a Fortran argument for pre{} / post{} code: scalars as for the accounting, a
 * pointer argument (a request, a status, a communicator out) as the address of a local C value. */
function fortranTraceConv(p) {
  const f = `f_${p.name}`;
  switch (p.type) {
    case 'MPI_Request *':
      return [`MPI_Request ${p.name}_c = PMPI_Request_f2c(*${f});`, `MPI_Request *${p.name} = &${p.name}_c;`];
    case 'MPI_Comm *':
      return [`MPI_Comm ${p.name}_c = PMPI_Comm_f2c(*${f});`, `MPI_Comm *${p.name} = &${p.name}_c;`];
    case 'MPI_Status *':
      return [`MPI_Status ${p.name}_c;`, `MPI_Status *${p.name} = PMPI_Status_f2c(${f}, &${p.name}_c) == MPI_SUCCESS ? &${p.name}_c : NULL;`];
    default: {
      const type = p.array ? 'const int *' : isBuffer(p) ? 'const void *' : `${p.type.replace(/^const /, '')} `;
      return [`${type}${p.name} = ${fortranToC(p)};`];
    }
  }
}
const fortranTrace = (c, code, rc) =>
  `  if (hp_tr_on()) {\n    ${[...(rc && /\brc\b/.test(code) ? ['int rc = *ierr;'] : []), ...usedIn(c, code).flatMap(fortranTraceConv), code].join('\n    ')}\n  }`;

function cWrapper(c) {
  const args = c.params.map((p) => p.name).join(', ');
  const lines = [];
  lines.push(`HP_MPI_EXPORT int MPI_${c.name}(${c.params.map(cDecl).join(', ') || 'void'}) {`);
  lines.push(`  if (!PMPI_${c.name}) return MPI_ERR_INTERN;`);
  lines.push('  hp_mpi_call c;');
  lines.push(`  if (!hp_mpi_begin(&c, HP_MPI_${c.name}, HP_MPI_RETURN_ADDRESS(), HP_MPI_CFA())) return PMPI_${c.name}(${args});`);
  if (c.flags.includes('status')) {
    lines.push('  MPI_Status hp_status;');
    lines.push('  if (status == MPI_STATUS_IGNORE) status = &hp_status;');
  }
  const io = c.flags.includes('io-read') ? 0 : c.flags.includes('io-write') ? 1 : -1;
  const blocking = !c.params.some((p) => p.name === 'request') && !c.name.endsWith('_begin');
  if (io >= 0 && blocking) lines.push('  uint64_t hp_io_t0 = hp_io_start();');
  if (c.pre) lines.push(`  ${c.pre}`);
  lines.push(`  int rc = PMPI_${c.name}(${args});`);
  const after = [];
  if (c.account) after.push(...c.account.split(/;\s*/).filter(Boolean).map((s) => `${s};`));
  if (c.flags.includes('status')) after.push('hp_acc_received(status);');
  if (io >= 0) after.push(`hp_io_done(${io}, count, datatype, ${blocking ? 'hp_io_t0' : '0'});`);
  if (c.flags.includes('recv')) after.push('hp_req_recv(*request, 0);');
  if (c.flags.includes('recv-persist')) after.push('hp_req_recv(*request, 1);');
  if (c.flags.includes('send-persist')) after.push('hp_req_send_persistent(*request, hp_bytes(count, datatype), hp_cm_peer(dest, comm));');
  if (after.length === 1) lines.push(`  if (rc == MPI_SUCCESS) ${after[0]}`);
  else if (after.length > 1) lines.push(`  if (rc == MPI_SUCCESS) {\n    ${after.join('\n    ')}\n  }`);
  if (c.post) lines.push(`  ${c.post}`);
  lines.push('  hp_mpi_end(&c);');
  lines.push('  return rc;');
  lines.push('}');
  return lines.join('\n');
}

/**
 * The Fortran entries of a call: one body, inlined into each entry (mpi_x_ and its spellings, and
 * mpi_x_f08_ for `use mpi_f08`), which differ only in the library entry they call and in mpi_f08's
 * OPTIONAL ierror. Each entry passes its own return address and frame, so a call is charged to the
 * program's call site whichever entry it came through.
 */
function fortranWrapper(c) {
  const lower = `mpi_${c.name.toLowerCase()}`;
  const fparams = [...c.params.map((p) => `${fortranType(p)}f_${p.name}`), 'MPI_Fint *ierr', ...hiddenLengths(c)];
  const fargs = [...c.params.map((p) => `f_${p.name}`), 'ierr', ...hiddenArgs(c)].join(', ');
  const f08 = c.flags.includes('f08');
  const io = c.flags.includes('io-read') ? 0 : c.flags.includes('io-write') ? 1 : -1;
  const blocking = !c.params.some((p) => p.name === 'request') && !c.name.endsWith('_begin');
  const lines = [];
  lines.push(`void p${lower}_(${fparams.join(', ')}) __attribute__((weak));`);
  if (f08) lines.push(`void p${lower}_f08_(${fparams.join(', ')}) __attribute__((weak));`);
  lines.push(
    `static inline __attribute__((always_inline)) void ${lower}_body(void (*pmpi)(${fparams.join(', ')}), uintptr_t ra, uintptr_t cfa, ${fparams.join(', ')}) {`,
  );
  lines.push(`  if (!pmpi) {\n    *ierr = MPI_ERR_INTERN;\n    return;\n  }`);
  lines.push('  hp_mpi_call c;');
  lines.push(`  if (!hp_mpi_begin(&c, HP_MPI_${c.name}, ra, cfa)) {\n    pmpi(${fargs});\n    return;\n  }`);
  if (c.flags.includes('status')) {
    lines.push('  MPI_Fint hp_fstatus[HP_F_STATUS_SIZE];');
    lines.push('  if (hp_mpi_f_status_ignore(f_status)) f_status = hp_fstatus;');
  }
  if (io >= 0 && blocking) lines.push('  uint64_t hp_io_t0 = hp_io_start();');
  if (c.pre) lines.push(fortranTrace(c, c.pre, false));
  lines.push(`  pmpi(${fargs});`);
  const body = [];
  const conv = used(c).map((p) => {
    const type = p.array ? 'const int *' : isBuffer(p) ? 'const void *' : `${p.type.replace(/^const /, '')} `;
    return `${type}${p.name} = ${fortranToC(p)};`;
  });
  if (c.account) body.push(...conv, c.account);
  if (c.flags.includes('status')) body.push('MPI_Status status;', 'if (PMPI_Status_f2c(f_status, &status) == MPI_SUCCESS) hp_acc_received(&status);');
  if (io >= 0) body.push(`hp_io_done(${io}, (int)*f_count, PMPI_Type_f2c(*f_datatype), ${blocking ? 'hp_io_t0' : '0'});`);
  if (c.flags.includes('recv')) body.push('hp_req_recv(PMPI_Request_f2c(*f_request), 0);');
  if (c.flags.includes('recv-persist')) body.push('hp_req_recv(PMPI_Request_f2c(*f_request), 1);');
  if (c.flags.includes('send-persist'))
    body.push('hp_req_send_persistent(PMPI_Request_f2c(*f_request), hp_bytes((int)*f_count, PMPI_Type_f2c(*f_datatype)), hp_cm_peer((int)*f_dest, PMPI_Comm_f2c(*f_comm)));');
  if (body.length) lines.push(`  if (*ierr == MPI_SUCCESS) {\n    ${body.join('\n    ')}\n  }`);
  if (c.post) lines.push(fortranTrace(c, c.post, true));
  lines.push('  hp_mpi_end(&c);');
  lines.push('}');
  lines.push(`static void ${lower}_f(${fparams.join(', ')}) {`);
  lines.push(`  ${lower}_body(p${lower}_, HP_MPI_RETURN_ADDRESS(), HP_MPI_CFA(), ${fargs});`);
  lines.push('}');
  lines.push(`HP_MPI_FORTRAN(${lower}, ${lower.toUpperCase()}, ${lower}_f, (${fparams.join(', ')}))`);
  if (f08) {
    lines.push(`HP_MPI_EXPORT void ${lower}_f08_(${fparams.join(', ')}) {`);
    // mpi_f08's ierror is OPTIONAL: absent, gfortran passes NULL (the library writes none then either)
    lines.push('  MPI_Fint hp_ierr = MPI_SUCCESS;\n  if (!ierr) ierr = &hp_ierr;');
    lines.push(`  ${lower}_body(p${lower}_f08_, HP_MPI_RETURN_ADDRESS(), HP_MPI_CFA(), ${fargs});`);
    lines.push('}');
  }
  return lines.join('\n');
}

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'native', 'mpi');
const banner = '/* Generated by scripts/gen-mpi-wrappers.mjs from its table: edit the table, not this file. */\n';

const events = [
  banner,
  '/* The MPI calls the layer times: one event each, named as TAU names them ("MPI_Send()", group MPI). */',
  '#ifndef HP_MPI_EVENTS_H',
  '#define HP_MPI_EVENTS_H',
  '',
  'enum hp_mpi_ev {',
  ...calls.map((c) => `  HP_MPI_${c.name},`),
  '  HP_MPI_N',
  '};',
  '',
  '/* "MPI_Send()" ... indexed by enum hp_mpi_ev. */',
  'extern const char *const hp_mpi_event_names[HP_MPI_N];',
  '',
  '#endif',
  '',
].join('\n');
writeFileSync(join(out, 'mpi_events.h'), events);

// Every PMPI function the layer calls, as a weak reference (in every file that calls one, through
// mpi_int.h: an undefined symbol is weak only when all its references are).
const HELPERS = ['Type_size', 'Get_count', 'Type_f2c', 'Comm_f2c', 'Request_f2c', 'Status_f2c', 'Get_library_version',
  'Comm_get_parent', 'Query_thread', 'Initialized', 'Finalized', 'Test_cancelled', 'Comm_rank', 'Comm_group',
  'Comm_remote_group', 'Comm_test_inter', 'Group_translate_ranks', 'Group_free', 'Group_size'];
const weak = [
  banner,
  '/* Weak references to every PMPI function the MPI layer calls: in a process without MPI they resolve',
  ' * to nothing, and loading the layer there costs nothing (docs/mpi.md). */',
  '#ifndef HP_MPI_WEAK_H',
  '#define HP_MPI_WEAK_H',
  '',
  ...[...calls.map((c) => c.name), ...HELPERS].map((n) => `#pragma weak PMPI_${n}`),
  '',
  '#endif',
  '',
].join('\n');
writeFileSync(join(out, 'mpi_weak.h'), weak);

const generated = calls.filter((c) => !c.flags.includes('manual'));
const wrappers = [
  banner,
  '/* The PMPI wrappers of the MPI layer: for each call, a C wrapper (MPI_X) and a Fortran one (mpi_x_,',
  ' * mpi_x__, mpi_x, MPI_X: the spellings Fortran compilers use). The Fortran wrapper calls the',
  " * library's own Fortran entry (pmpi_x_), so Fortran semantics stay the library's, and converts to C",
  ' * only what the accounting reads. Every PMPI function is a weak reference: loaded into a program',
  ' * without MPI (or into mpirun), this library resolves nothing and does nothing (docs/mpi.md). */',
  '#include "mpi_int.h"',
  '',
  `const char *const hp_mpi_event_names[HP_MPI_N] = {\n${calls.map((c) => `  "MPI_${c.name}()",`).join('\n')}\n};`,
  '',
  ...generated.map((c) => `${cWrapper(c)}\n\n${fortranWrapper(c)}\n`),
].join('\n');
writeFileSync(join(out, 'wrappers.c'), wrappers);
process.stdout.write(`wrote ${calls.length} events, ${generated.length} C and Fortran wrappers\n`);
