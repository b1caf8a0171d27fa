"""Read the OpenMP events of an OTF2 archive with the OTF2 project's own Python reader (Debian
python3-otf2), in the archive's global time order, and print, as JSON on stdout, what
test/trace-openmp.test.ts checks:

- per location: ThreadFork / ThreadJoin paired (no join without its fork, none open at the end),
  ThreadTeamBegin / End paired on the same thread team, Enter / Leave nested, timestamps never back;
- explicit tasks, named by (thread team, creating thread, generation number): each created once and
  completed exactly once; switches consistent: a task switched to is not running on another location
  nor completed, and a task resumed (switched to again) was suspended before (the location that ran
  it switched to another task); a task completes where it runs;
- locks (ThreadAcquireLock / ThreadReleaseLock, per lock id): orders 0, 1, 2, ... in time; each
  acquisition released exactly once, by the location that acquired it, with its acquisition order,
  not before it; a location never acquires a lock it still holds, nor releases one it does not.
  What is not checked is that a release comes before the next acquisition in time: OMPT reports a
  release after the runtime let the lock go, so on a loaded machine a preempted callback stamps it
  after any number of later acquisitions (seen on CI's two cores). Acquisitions are reported after
  the lock is taken, before it can be let go, so their stamps do follow the acquisition order. The
  longest such lag is printed (lock_release_lag_ns);
- thread teams: each Comm of paradigm OpenMP with its members' location names.

Usage: python3 otf2_omp_check.py ARCHIVE/traces.otf2
"""
import json
import sys

from collections import defaultdict

import otf2

E = otf2.events


def main(path):
    bad = []

    def fail(msg):
        if len(bad) < 20:
            bad.append(msg)

    out = {"teams": [], "forks": 0, "joins": 0, "team_begins": 0, "team_ends": 0, "created": 0, "completed": 0,
           "switches": 0, "resumed": 0, "migrated": 0, "tasks_running_at_end": 0, "acquires": 0, "releases": 0,
           "locks": 0, "locations_with_tasks": 0, "lock_release_lag_ns": 0, "bad": bad}
    with otf2.reader.open(path) as r:
        for c in r.definitions.comms:
            if c.group.paradigm == otf2.Paradigm.OPENMP:
                out["teams"].append({"name": c.name, "members": [m.name for m in c.group.members]})
        last = {}
        forks = defaultdict(int)
        teams = defaultdict(list)
        regions = defaultdict(list)
        state = {}      # task -> ("running", loc) | ("suspended", loc) | ("created", None) | ("completed", loc)
        pieces = defaultdict(int)
        created = defaultdict(int)
        completed = defaultdict(int)
        current = {}    # loc -> task running there
        ran_on = set()
        acquired = {}        # (lock, order) -> (location, time), until released
        holding = {}         # (location, lock) -> order
        acquire_times = {}   # (lock, order) -> time
        lock_next = defaultdict(int)

        def lock_of(ev):
            lock = ev.lock_id if hasattr(ev, "lock_id") else ev.lockID
            order = ev.acquisition_order if hasattr(ev, "acquisition_order") else ev.acquisitionOrder
            return lock, order

        def next_acquire_time(lock, order):
            return acquire_times.get((lock, order + 1))
        for loc, ev in r.events:
            lname = f"{loc.group.name}/{loc.name}"  # thread names repeat across processes
            if ev.time < last.get(lname, 0):
                fail(f"{lname}: time goes back at {ev.time}")
            last[lname] = ev.time
            if isinstance(ev, E.Enter):
                regions[lname].append(ev.region)
            elif isinstance(ev, E.Leave):
                if not regions[lname] or regions[lname][-1] != ev.region:
                    fail(f"{lname}: leave of {ev.region.name} not the innermost region entered")
                else:
                    regions[lname].pop()
            elif isinstance(ev, E.ThreadFork):
                out["forks"] += 1
                forks[lname] += 1
            elif isinstance(ev, E.ThreadJoin):
                out["joins"] += 1
                if forks[lname] == 0:
                    fail(f"{lname}: join without a fork")
                else:
                    forks[lname] -= 1
            elif isinstance(ev, E.ThreadTeamBegin):
                out["team_begins"] += 1
                teams[lname].append(ev.thread_team.name if hasattr(ev, "thread_team") else ev.threadTeam.name)
            elif isinstance(ev, E.ThreadTeamEnd):
                out["team_ends"] += 1
                name = ev.thread_team.name if hasattr(ev, "thread_team") else ev.threadTeam.name
                if not teams[lname] or teams[lname][-1] != name:
                    fail(f"{lname}: team end of {name} not the team it began last")
                else:
                    teams[lname].pop()
                current.pop(lname, None)
            elif isinstance(ev, (E.ThreadTaskCreate, E.ThreadTaskSwitch, E.ThreadTaskComplete)):
                team = ev.thread_team if hasattr(ev, "thread_team") else ev.threadTeam
                creator = ev.creating_thread if hasattr(ev, "creating_thread") else ev.creatingThread
                gen = ev.generation_number if hasattr(ev, "generation_number") else ev.generationNumber
                key = (team.name, creator, gen)
                if isinstance(ev, E.ThreadTaskCreate):
                    out["created"] += 1
                    created[key] += 1
                    if created[key] > 1:
                        fail(f"task {key} created twice")
                    state.setdefault(key, ("created", None))
                elif isinstance(ev, E.ThreadTaskSwitch):
                    out["switches"] += 1
                    ran_on.add(lname)
                    cur = current.get(lname)
                    if cur is not None and cur != key and state.get(cur) == ("running", lname):
                        state[cur] = ("suspended", lname)
                    s = state.get(key)
                    if s is None:
                        fail(f"{lname}: switch to task {key} never created")
                    elif s[0] == "running" and s[1] != lname:
                        fail(f"{lname}: switch to task {key} running on {s[1]}")
                    elif s[0] == "completed":
                        fail(f"{lname}: switch to task {key} after its completion")
                    elif pieces[key] > 0:
                        if s[0] != "suspended":
                            fail(f"{lname}: task {key} resumed but not suspended ({s[0]})")
                        out["resumed"] += 1
                        if s[1] != lname:
                            out["migrated"] += 1
                    pieces[key] += 1
                    state[key] = ("running", lname)
                    current[lname] = key
                else:
                    out["completed"] += 1
                    completed[key] += 1
                    if state.get(key) != ("running", lname):
                        fail(f"{lname}: task {key} completed where it does not run ({state.get(key)})")
                    state[key] = ("completed", lname)
                    if current.get(lname) == key:
                        del current[lname]
            elif isinstance(ev, E.ThreadAcquireLock):
                out["acquires"] += 1
                lock, order = lock_of(ev)
                if order != lock_next[lock]:
                    fail(f"{lname}: lock {lock} acquisition order {order}, expected {lock_next[lock]}")
                lock_next[lock] = order + 1
                if (lname, lock) in holding:
                    fail(f"{lname}: lock {lock} acquired (order {order}) while this location holds it")
                holding[(lname, lock)] = order
                acquired[(lock, order)] = (lname, ev.time)
                acquire_times[(lock, order)] = ev.time
            elif isinstance(ev, E.ThreadReleaseLock):
                out["releases"] += 1
                lock, order = lock_of(ev)
                got = acquired.pop((lock, order), None)
                if got is None or got[0] != lname or holding.get((lname, lock)) != order:
                    fail(f"{lname}: lock {lock} released (order {order}), which this location does not hold ({got})")
                    continue
                del holding[(lname, lock)]
                if ev.time < got[1]:
                    fail(f"{lname}: lock {lock} released (order {order}) before it was acquired")
                # how far this release trails the next acquisition of the lock, if that came first
                nxt = next_acquire_time(lock, order)
                if nxt is not None:
                    out["lock_release_lag_ns"] = max(out["lock_release_lag_ns"], ev.time - nxt)
        for lname, n in forks.items():
            if n:
                fail(f"{lname}: {n} forks without their join")
        for lname, t in teams.items():
            if t:
                fail(f"{lname}: teams {t} begun and not ended")
        for lname, st in regions.items():
            if st:
                fail(f"{lname}: {len(st)} regions entered and not left")
        for key, n in completed.items():
            if n != 1:
                fail(f"task {key} completed {n} times")
        for key, n in created.items():
            if completed.get(key, 0) != 1:
                fail(f"task {key} created and completed {completed.get(key, 0)} times")
        if acquired:
            fail(f"acquisitions never released: {sorted(acquired)[:10]}")
        out["tasks_running_at_end"] = sum(1 for s in state.values() if s[0] == "running")
        out["locks"] = len(lock_next)
        out["locations_with_tasks"] = len(ran_on)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
