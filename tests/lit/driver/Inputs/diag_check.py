"""diag_check.py json|sarif < LOG: checks kdslc's machine-readable
diagnostics and prints one line per diagnostic for FileCheck.

json: GCC's -fdiagnostics-format=json shape (an array of objects with kind,
message, locations [{caret, finish?}], option for warnings, children for
notes).  sarif: the properties SARIF 2.1.0's schema requires, its enums,
and that every property used is one the schema defines for that object
(checked by hand: no network, no jsonschema package)."""
import json
import sys

KINDS = {"error", "warning", "note"}


def fail(msg):
    sys.exit("diag_check: " + msg)


def need(obj, keys, what):
    if not isinstance(obj, dict):
        fail("%s is not an object: %r" % (what, obj))
    for k in keys:
        if k not in obj:
            fail("%s lacks '%s': %r" % (what, k, obj))


def only(obj, allowed, what):
    extra = set(obj) - set(allowed)
    if extra:
        fail("%s has properties the schema does not define: %s" % (what, sorted(extra)))


def pos(p, what):
    need(p, ["file", "line", "column"], what)
    for k in ("line", "column", "display-column", "byte-column"):
        if k in p and (not isinstance(p[k], int) or p[k] < 1):
            fail("%s.%s is not a positive integer" % (what, k))
    return "%d:%d" % (p["line"], p["column"])


def gcc_diag(d, depth):
    need(d, ["kind", "message", "locations", "children"], "diagnostic")
    if d["kind"] not in KINDS:
        fail("unknown kind %r" % d["kind"])
    if "option" in d and d["kind"] == "note":
        fail("a note with an option")
    where = []
    for loc in d["locations"]:
        need(loc, ["caret"], "location")
        w = pos(loc["caret"], "caret")
        if "finish" in loc:
            w += "-" + pos(loc["finish"], "finish")
        where.append(w)
    line = "  " * depth + "%s %s %s" % (d["kind"], ",".join(where) or "-", d["message"])
    if "option" in d:
        line += " [%s]" % d["option"]
    print(line)
    for c in d["children"]:
        if c.get("kind") != "note":
            fail("a child that is not a note")
        gcc_diag(c, depth + 1)


def check_json(log):
    if not isinstance(log, list):
        fail("not an array")
    for d in log:
        gcc_diag(d, 0)
    print("%d diagnostics" % len(log))


def message(m, what):
    need(m, [], what)
    if "text" not in m and "id" not in m:
        fail("%s has neither text nor id" % what)
    only(m, ["text", "markdown", "id", "arguments", "properties"], what)
    return m.get("text", "")


def sarif_loc(loc, what):
    only(loc, ["id", "physicalLocation", "logicalLocations", "message", "annotations",
               "relationships", "properties"], what)
    pl = loc.get("physicalLocation")
    if pl is None:
        return "-"
    only(pl, ["address", "artifactLocation", "region", "contextRegion", "properties"],
         what + ".physicalLocation")
    if "artifactLocation" not in pl and "address" not in pl:
        fail("%s.physicalLocation has neither artifactLocation nor address" % what)
    art = pl["artifactLocation"]
    only(art, ["uri", "uriBaseId", "index", "description", "properties"], "artifactLocation")
    if not isinstance(art.get("uri"), str):
        fail("artifactLocation.uri is not a string")
    reg = pl.get("region", {})
    only(reg, ["startLine", "startColumn", "endLine", "endColumn", "charOffset", "charLength",
               "byteOffset", "byteLength", "snippet", "message", "sourceLanguage",
               "properties"], "region")
    for k, v in reg.items():
        if not isinstance(v, int) or v < 1:
            fail("region.%s is not a positive integer" % k)
    w = "%s:%d:%d" % (art["uri"].rsplit("/", 1)[-1], reg["startLine"], reg["startColumn"])
    if "endLine" in reg:
        w += "-%d:%d" % (reg["endLine"], reg["endColumn"])
    return w


def check_sarif(log):
    need(log, ["version", "runs"], "sarifLog")
    only(log, ["$schema", "version", "runs", "inlineExternalProperties", "properties"], "sarifLog")
    if log["version"] != "2.1.0":
        fail("version is not 2.1.0")
    if len(log["runs"]) != 1:
        fail("not one run")
    run = log["runs"][0]
    need(run, ["tool"], "run")
    if run.get("columnKind", "unicodeCodePoints") not in ("utf16CodeUnits", "unicodeCodePoints"):
        fail("bad columnKind")
    need(run["tool"], ["driver"], "tool")
    drv = run["tool"]["driver"]
    need(drv, ["name"], "toolComponent")
    only(drv, ["guid", "name", "fullName", "version", "semanticVersion", "informationUri",
               "rules", "notifications", "properties", "organization", "product",
               "shortDescription", "fullDescription"], "toolComponent")
    rules = drv.get("rules", [])
    for r in rules:
        need(r, ["id"], "reportingDescriptor")
        only(r, ["id", "name", "shortDescription", "fullDescription", "helpUri", "help",
                 "defaultConfiguration", "properties"], "reportingDescriptor")
    print("tool %s %s, rules %s" % (drv["name"], drv.get("version"),
                                    " ".join(r["id"] for r in rules)))
    for res in run.get("results", []):
        need(res, ["message"], "result")
        only(res, ["ruleId", "ruleIndex", "rule", "kind", "level", "message", "locations",
                   "relatedLocations", "properties"], "result")
        if res.get("level", "warning") not in ("none", "note", "warning", "error"):
            fail("bad level %r" % res["level"])
        if "ruleIndex" in res and rules[res["ruleIndex"]]["id"] != res.get("ruleId"):
            fail("ruleIndex and ruleId disagree")
        where = ",".join(sarif_loc(l, "location") for l in res.get("locations", [])) or "-"
        print("%s %s %s: %s" % (res.get("level"), res.get("ruleId"), where,
                                message(res["message"], "result.message")))
        for rl in res.get("relatedLocations", []):
            print("  related %s: %s" % (sarif_loc(rl, "relatedLocation"),
                                        message(rl["message"], "relatedLocation.message")))
    print("%d results" % len(run.get("results", [])))


text = sys.stdin.read()
try:
    log = json.loads(text)
except ValueError as e:
    fail("not JSON (%s): %r" % (e, text[:200]))
(check_json if sys.argv[1] == "json" else check_sarif)(log)
