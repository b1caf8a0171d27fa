"""Read the MPI events of an OTF2 archive with the OTF2 project's own Python reader (Debian python3-otf2)
and print, as JSON on stdout, what test/trace-mpi.test.ts checks:

- messages: every send (MpiSend, MpiIsend) and receive (MpiRecv, MpiIrecv) with its sender and
  receiver as ranks of MPI_COMM_WORLD (a communicator rank translated through the communicator's
  group), communicator, tag and bytes; sends matched to receives in MPI's order (per sender,
  receiver, communicator and tag, first to first); what is left unmatched and matched pairs whose
  bytes differ;
- non-blocking requests: MpiIsend ids completed by MpiIsendComplete, MpiIrecvRequest ids completed by
  MpiIrecv, on the same location, each once;
- collectives: per location, MpiCollectiveBegin / End balanced (no End without its Begin, none open at
  the end), and each End's operation, communicator, root (as a world rank) and bytes;
- communicators: name and members (world ranks).

A location's world rank is its location group's name, `rank <N>` (docs/trace.md).
Usage: python3 otf2_mpi_check.py ARCHIVE/traces.otf2
"""
import json
import sys
from collections import defaultdict

import otf2


def world_rank(location):
    return int(location.group.name.split()[1])


def main(path):
    out = {"comms": [], "messages": [], "unmatched_sends": [], "unmatched_recvs": [], "bytes_differ": [],
           "isend": {"issued": 0, "completed": 0, "bad": 0}, "irecv": {"requested": 0, "completed": 0, "bad": 0},
           "collectives": [], "coll_unbalanced": 0}
    with otf2.reader.open(path) as r:
        comm_ids = {}
        for i, c in enumerate(r.definitions.comms):
            if c.group.paradigm != otf2.Paradigm.MPI:
                continue  # OpenMP thread teams (after the MPI communicators: ids stay indices)
            comm_ids[c] = i
            out["comms"].append({"id": i, "name": c.name, "members": [world_rank(m) for m in c.group.members]})

        def to_world(comm, rank):
            return out["comms"][comm_ids[comm]]["members"][rank]

        sends = defaultdict(list)
        recvs = defaultdict(list)
        open_isend = defaultdict(set)
        open_irecv = defaultdict(set)
        coll_open = defaultdict(int)
        for loc, ev in r.events:
            me = world_rank(loc)
            if isinstance(ev, (otf2.events.MpiSend, otf2.events.MpiIsend)):
                key = (me, to_world(ev.communicator, ev.receiver), comm_ids[ev.communicator], ev.msg_tag)
                sends[key].append(ev.msg_length)
                if isinstance(ev, otf2.events.MpiIsend):
                    out["isend"]["issued"] += 1
                    open_isend[loc].add(ev.request_id)
            elif isinstance(ev, (otf2.events.MpiRecv, otf2.events.MpiIrecv)):
                key = (to_world(ev.communicator, ev.sender), me, comm_ids[ev.communicator], ev.msg_tag)
                recvs[key].append(ev.msg_length)
                if isinstance(ev, otf2.events.MpiIrecv):
                    if ev.request_id in open_irecv[loc]:
                        open_irecv[loc].discard(ev.request_id)
                        out["irecv"]["completed"] += 1
                    else:
                        out["irecv"]["bad"] += 1
            elif isinstance(ev, otf2.events.MpiIsendComplete):
                if ev.request_id in open_isend[loc]:
                    open_isend[loc].discard(ev.request_id)
                    out["isend"]["completed"] += 1
                else:
                    out["isend"]["bad"] += 1
            elif isinstance(ev, otf2.events.MpiIrecvRequest):
                out["irecv"]["requested"] += 1
                open_irecv[loc].add(ev.request_id)
            elif isinstance(ev, otf2.events.MpiCollectiveBegin):
                if coll_open[loc]:
                    out["coll_unbalanced"] += 1
                coll_open[loc] += 1
            elif isinstance(ev, otf2.events.MpiCollectiveEnd):
                if not coll_open[loc]:
                    out["coll_unbalanced"] += 1
                coll_open[loc] = 0
                root = None if ev.root is None or ev.root >= 0xFFFFFFFF else to_world(ev.communicator, ev.root)
                out["collectives"].append({"rank": me, "op": str(ev.collective_op).split(".")[-1],
                                           "comm": comm_ids.get(ev.communicator, -1), "root": root,
                                           "sent": ev.size_sent, "received": ev.size_received})
        out["coll_unbalanced"] += sum(1 for n in coll_open.values() if n)
        for key in set(sends) | set(recvs):
            s, v = sends.get(key, []), recvs.get(key, [])
            for i in range(max(len(s), len(v))):
                msg = {"from": key[0], "to": key[1], "comm": key[2], "tag": key[3]}
                if i >= len(v):
                    out["unmatched_sends"].append(dict(msg, bytes=s[i]))
                elif i >= len(s):
                    out["unmatched_recvs"].append(dict(msg, bytes=v[i]))
                else:
                    out["messages"].append(dict(msg, bytes=s[i]))
                    if s[i] != v[i]:
                        out["bytes_differ"].append(dict(msg, sent=s[i], received=v[i]))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
