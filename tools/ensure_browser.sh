#!/usr/bin/env bash
# The site tests drive Debian's Chromium through Playwright, and Korean text needs a CJK font.
# Installs both when missing and we may (root with apt-get); otherwise the browser tests skip.
set -u
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK\|NanumGothic\|Noto Sans KR" || need+=(fonts-noto-cjk)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing ${need[*]} (for the browser tests)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >/dev/null 2>&1 \
    || echo "could not install ${need[*]}; the browser tests will be skipped"
else
  echo "missing ${need[*]}: install them to run the browser tests (they are skipped otherwise)"
fi
exit 0
