#!/usr/bin/env bash
# The workflows and the Action, linted and audited offline (the README's test command runs this):
#   actionlint   every workflow in .github/workflows/: expressions, contexts, `needs`, permissions' names, and their
#                `run:` scripts through shellcheck when it is installed (.ci/run installs it); it reads action.yml too,
#                through ci.yml's `uses: ./` (the inputs a step gives must be the Action's)
#   zizmor       the workflows and action.yml, for Actions security: template injection, token permissions,
#                credentials left behind, cache poisoning, unpinned actions (.github/zizmor.yml: each ignore's reason)
# Either finding anything fails it. No network: zizmor runs --offline (its online audits need GitHub's API).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${WIKIWARDEN_LINT_BIN:-.venv/bin}"

if command -v shellcheck >/dev/null 2>&1; then
    echo "lint_workflows: shellcheck $(shellcheck --version | awk '/^version:/ {print $2}') checks the run: scripts"
else
    echo "lint_workflows: no shellcheck on the PATH: the run: scripts are not checked (.ci/run installs it)"
fi
echo "lint_workflows: $("$bin/actionlint" --version | head -1)"
"$bin/actionlint" -no-color -oneline
echo "lint_workflows: actionlint: no findings in $(find .github/workflows -name "*.yml" | wc -l) workflows"
echo "lint_workflows: $("$bin/zizmor" --version)"
"$bin/zizmor" --offline --no-progress --config .github/zizmor.yml .github/workflows action.yml
