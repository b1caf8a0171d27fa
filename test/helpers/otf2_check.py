"""Read an OTF2 archive with the OTF2 project's own Python reader (Debian python3-otf2) and print what
the trace tests check, as JSON on stdout:

- per location: its name, group, system tree node, the event count its definition states and the
  events read; Enter / Leave nesting (a leave that is not the innermost open region's, regions left
  open at the end), timestamps that go back; per region, the inclusive time of its outermost
  instances (a recursive region counted once, as TAU's profile counts it) and its calls; the
  attributes found on Enter events; Metric events; the location's properties;
- the clock properties and every region's definition.

Usage: python3 otf2_check.py ARCHIVE/traces.otf2
"""
import json
import sys

import otf2


def main(path):
    out = {"locations": [], "regions": []}
    with otf2.reader.open(path) as r:
        defs = r.definitions
        cp = defs.clock_properties
        out["clock"] = {
            "resolution": cp.timer_resolution,
            "offset": cp.global_offset,
            "length": cp.trace_length,
        }
        for reg in defs.regions:
            out["regions"].append({
                "name": reg.name,
                "canonical": reg.canonical_name,
                "description": reg.description,
                "role": str(reg.region_role),
                "paradigm": str(reg.paradigm),
                "file": reg.source_file,
                "line": reg.begin_line_number,
            })
        locs = {}
        for loc in defs.locations:
            locs[loc] = {
                "name": loc.name,
                "group": loc.group.name,
                "group_type": str(loc.group.location_group_type),
                "group_creator": loc.group.creating_location_group.name if loc.group.creating_location_group else None,
                "node": loc.group.system_tree_parent.name,
                "node_class": loc.group.system_tree_parent.class_name,
                "type": str(loc.type),
                "events_defined": loc.number_of_events,
                "events": 0,
                "enter": 0,
                "leave": 0,
                "metrics": 0,
                "mismatched": 0,
                "open_at_end": 0,
                "backwards": 0,
                "first": None,
                "last": None,
                "regions": {},
                "attributes": {},
                "properties": {},
                "_stack": [],
                "_last": None,
            }
        for prop in defs.location_properties:
            locs[prop.location]["properties"][prop.name] = prop.value if not hasattr(prop.value, "name") else str(prop.value)
        for loc, ev in r.events:
            s = locs[loc]
            s["events"] += 1
            t = ev.time
            if s["_last"] is not None and t < s["_last"]:
                s["backwards"] += 1
            s["_last"] = t
            if s["first"] is None:
                s["first"] = t
            s["last"] = t
            if isinstance(ev, otf2.events.Enter):
                s["enter"] += 1
                attrs = {a.name: v for a, v in ev.attributes.items()} if ev.attributes else {}
                # A timer's first parameter specialisation covers the whole call in the profile, but
                # is entered in the trace where the parameter was set (docs/trace.md): its lead.
                lead = 0
                if any(k.startswith("param:") for k in attrs) and s["_stack"] and not s["_stack"][-1][2]:
                    lead = t - s["_stack"][-1][1]
                    s["_stack"][-1][2] = True
                s["_stack"].append([ev.region.name, t, False, lead])
                if attrs:
                    s["attributes"][ev.region.name] = attrs
            elif isinstance(ev, otf2.events.Leave):
                s["leave"] += 1
                if not s["_stack"] or s["_stack"][-1][0] != ev.region.name:
                    s["mismatched"] += 1
                    continue
                name, start, _, lead = s["_stack"].pop()
                reg = s["regions"].setdefault(name, {"incl": 0, "calls": 0, "lead": 0})
                reg["calls"] += 1
                if not any(e[0] == name for e in s["_stack"]):
                    reg["incl"] += t - start
                    reg["lead"] += lead
            elif isinstance(ev, otf2.events.Metric):
                s["metrics"] += 1
        for s in locs.values():
            s["open_at_end"] = len(s["_stack"])
            del s["_stack"]
            del s["_last"]
            out["locations"].append(s)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
