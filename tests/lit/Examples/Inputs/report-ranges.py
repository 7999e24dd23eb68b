# Checks that every static int8 activation scale of a mixc report (JSON)
# represents the calibrated range of its layer's input:
#   report-ranges.py REPORT.json CALIBRATION.json
# For the symmetric scheme the range is +-127 * scale, and scale is
# max|x| / 127 rounded once to f32, so 127 * scale is max|x| within 2^-23
# relative (one f32 rounding, then a product exact in f64). Prints the count.
import json
import sys

report = json.load(open(sys.argv[1]))
ranges = json.load(open(sys.argv[2]))["ranges"]
count = 0
for layer in report["layers"]:
    scales = layer.get("int8_activations", {}).get("static", [])
    if not scales:
        continue
    calibrated = ranges[layer["layer"] + "/input"]
    want = max(-calibrated["min"], calibrated["max"])
    got = scales[0]["max"]
    if abs(got - want) > 2 ** -23 * want or scales[0]["min"] != -got:
        sys.exit("%s: range [%g, %g], calibrated max|x| %g" %
                 (layer["layer"], scales[0]["min"], got, want))
    count += 1
print("%d ranges match" % count)
