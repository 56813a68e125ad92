#!/usr/bin/env bash
# Checks that every relative link in the committed Markdown (the READMEs, their pages in docs/, the
# other guides; not the report's templates and fixtures) points at a file of this checkout: the pages link each other, the charts and the
# code, and a page that moves must not leave a link behind. Web links and anchors are not followed.
set -euo pipefail
cd "$(dirname "$0")/.."
broken=0
while IFS= read -r page; do
  dir=$(dirname "$page")
  # Every "](target)" of the page, one a line: Markdown links and images alike.
  while IFS= read -r target; do
    case $target in
      http://* | https://* | mailto:* | '#'*) continue ;;
    esac
    path=${target%%#*}
    if [ ! -e "$dir/$path" ]; then
      echo "error: $page links $target, which does not exist" >&2
      broken=$((broken + 1))
    fi
  done < <(grep -o ']([^)]*)' "$page" | sed 's/^](//; s/)$//')
done < <(git ls-files '*.md' ':!report/templates' ':!report/tests') # templates hold placeholders
if [ "$broken" -gt 0 ]; then
  echo "error: $broken broken links" >&2
  exit 1
fi
echo "every relative link in the Markdown files points at a file" >&2
