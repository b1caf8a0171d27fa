"""Read an OTF2 archive's samples with the OTF2 project's own Python reader (Debian python3-otf2):
per location, its Enter, Leave and CallingContextSample events in file order, each sample with its
chain (the calling contexts from the sample's up to the root: region name, source file, line) and
its interrupt generator; the archive's interrupt generators and calling contexts. JSON on stdout,
for test/trace-samples.test.ts.

Usage: python3 otf2_samples.py ARCHIVE/traces.otf2
"""
import json
import sys

import otf2


def chain(cc):
    out = []
    while cc is not None:
        scl = cc.source_code_location
        out.append([cc.region.name, scl.file if scl else "", scl.line_number if scl else 0])
        cc = cc.parent
    return out


def main(path):
    out = {"locations": {}, "generators": [], "contexts": 0}
    with otf2.reader.open(path) as r:
        defs = r.definitions
        for ig in defs.interrupt_generators:
            out["generators"].append({"name": ig.name, "mode": str(ig.interrupt_generator_mode), "period": ig.period,
                                      "exponent": ig.exponent})
        out["contexts"] = len(defs.calling_contexts)
        for loc in defs.locations:
            out["locations"][loc.name] = {"events": [], "properties": {}}
        for prop in defs.location_properties:
            out["locations"][prop.location.name]["properties"][prop.name] = prop.value
        for loc, ev in r.events:
            evs = out["locations"][loc.name]["events"]
            if isinstance(ev, otf2.events.Enter):
                evs.append([ev.time, "E", ev.region.name])
            elif isinstance(ev, otf2.events.Leave):
                evs.append([ev.time, "L", ev.region.name])
            elif isinstance(ev, otf2.events.CallingContextSample):
                evs.append([ev.time, "S", chain(ev.calling_context), ev.unwind_distance, ev.interrupt_generator.name])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
