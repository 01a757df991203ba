#!/usr/bin/env bash
# Check the installed, pinned dependencies against published advisories (pip-audit, PyPI's data).
# The result is printed for the log; this script never fails the build: it is a report, and the
# advisory service is often out of reach (no network besides the package index, or an index
# mirror without PyPI's JSON API). Then it says so, and how many packages could not be checked.
set -uo pipefail
cd "$(dirname "$0")/.."

if ! .venv/bin/python -c "import pip_audit" 2>/dev/null; then
  echo "pip-audit: not installed; run 'bash scripts/setup_env.sh --dev' (it is pinned in requirements-dev.txt)"
  exit 0
fi
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
timeout 300 .venv/bin/python -m pip_audit --vulnerability-service pypi --format json --progress-spinner off \
  --skip-editable --output "$report" 2>"$report.err"
status=$?
.venv/bin/python - "$report" "$status" "$report.err" <<'PY'
import json, sys
path, status, errors = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    data = json.load(open(path))
except (OSError, ValueError):
    reason = (open(errors).read().strip().splitlines() or ["no output"])[-1]
    print(f"pip-audit: could not run an audit (exit {status}): {reason[:300]}")
    sys.exit(0)
packages = data.get("dependencies", [])
skipped = [p for p in packages if "skip_reason" in p]
checked = [p for p in packages if "skip_reason" not in p]
found = [(p["name"], p["version"], v["id"], ", ".join(v.get("fix_versions", [])) or "no fix yet")
         for p in checked for v in p.get("vulns", [])]
print(f"pip-audit: {len(checked)} of {len(packages)} installed packages checked against PyPI's advisories; "
      f"{len(found)} known vulnerabilities")
for name, version, vuln, fixes in found:
    print(f"  VULNERABLE {name} {version}: {vuln} (fixed in: {fixes})")
if skipped:
    reasons = {p["skip_reason"].split(":")[0] for p in skipped}
    print(f"pip-audit: {len(skipped)} packages could not be checked ({'; '.join(sorted(reasons))}).")
    if not checked:
        print("pip-audit: NO AUDIT WAS POSSIBLE HERE: the advisory service is unreachable from this machine "
              "(run 'bash scripts/audit.sh' where pypi.org's JSON API can be reached).")
PY
rm -f "$report.err"
exit 0
