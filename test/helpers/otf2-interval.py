"""The profile of an interval [t0, t1) of an OTF2 trace, computed with OTF2's own Python reader
(python3-otf2), independently of hyprof: per region, the time inside the interval (exclusive, and
inclusive with a recursive region counted once) and the instances entered inside it.
Usage: python3 otf2-interval.py ANCHOR.otf2 T0 T1   (ns after the clock's global offset)"""
import json
import sys
from collections import defaultdict

import otf2

path, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
incl, excl, calls = defaultdict(float), defaultdict(float), defaultdict(int)
with otf2.reader.open(path) as trace:
    offset = trace.definitions.clock_properties.global_offset
    stacks = {}
    for location, event in trace.events:
        stack = stacks.setdefault(location, [])
        t = event.time - offset
        if isinstance(event, otf2.events.Enter):
            stack.append([event.region.name, t, 0.0])
        elif isinstance(event, otf2.events.Leave):
            name, start, children = stack.pop()
            inside = max(0.0, min(t, t1) - max(start, t0))
            if t0 <= start < t1:
                calls[name] += 1
            excl[name] += inside - children
            if not any(frame[0] == name for frame in stack):
                incl[name] += inside
            if stack:
                stack[-1][2] += inside
print(json.dumps({"incl": incl, "excl": excl, "calls": calls}))
