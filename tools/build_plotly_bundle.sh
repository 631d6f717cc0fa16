#!/usr/bin/env bash
# Build the site's plotly.js partial bundle: plotly.js core (which carries the scatter trace)
# plus only the other trace types the course's figures draw (bar, heatmap).
#
#   bash tools/build_plotly_bundle.sh            # writes book/_static/plotly-course-<version>.min.js
#
# Why: the stock "cartesian" bundle (1.4 MB) also carries box, violin, histogram, contour,
# image, pie, ternary and calendars, which no page draws; every chapter page loads the bundle.
# How: the same esbuild settings as plotly.js's own partial bundles (tasks/partial_bundle.mjs,
# esbuild-config.js), including its plugin that strips attribute descriptions, and the same
# license header and UMD wrapper. Needs node and npm (registry access) once; the output is
# committed, so building the site never needs either.
#
# When a figure starts drawing another trace type, add it to TRACES (tests/test_site.py
# fails on a figure whose trace type the bundle lacks) and run this script again.
set -euo pipefail

PLOTLY_VERSION=3.4.0
ESBUILD_VERSION=0.25.12
STREAM_BROWSERIFY_VERSION=3.0.0
TRACES=(bar heatmap)            # scatter is part of plotly.js's core

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/book/_static/plotly-course-$PLOTLY_VERSION.min.js"
LICENSE_OUT="$ROOT/book/_static/plotly-LICENSE.txt"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cd "$WORK"
echo '{"name": "plotly-course-bundle", "private": true, "version": "1.0.0"}' > package.json
npm install --silent --ignore-scripts --no-audit --no-fund \
  "plotly.js@$PLOTLY_VERSION" "esbuild@$ESBUILD_VERSION" "stream-browserify@$STREAM_BROWSERIFY_VERSION"

{
  echo "'use strict';"
  echo "var Plotly = require('plotly.js/lib/core');"
  echo "Plotly.register(["
  for trace in "${TRACES[@]}"; do echo "    require('plotly.js/lib/$trace'),"; done
  echo "]);"
  echo "module.exports = Plotly;"
} > index.js

cat > build.js <<'EOF'
// plotly.js's esbuildConfig (esbuild-config.js) with its strip-meta plugin; the maplibre CSS
// that src/registry.js requires only for map subplots is left out (no map trace is bundled).
const esbuild = require('esbuild');
const stripMeta = require('plotly.js/tasks/compress_attributes.js');
esbuild.build({
  entryPoints: ['index.js'],
  outfile: 'bundle.min.js',
  format: 'iife',
  globalName: 'Plotly',
  bundle: true,
  minify: true,
  sourcemap: false,
  plugins: [stripMeta],
  loader: { '.css': 'empty' },
  alias: { stream: 'stream-browserify' },
  define: { global: 'window', 'define.amd': 'false', 'process.env.NODE_DEBUG': 'false' },
  target: 'es2016',
  logLevel: 'warning',
}).catch(() => process.exit(1));
EOF
node build.js

YEAR=$(date +%Y)
{
  printf '/**\n* plotly.js (course: scatter, %s - minified) v%s\n' "$(IFS=,; echo "${TRACES[*]}" | sed 's/,/, /g')" "$PLOTLY_VERSION"
  printf '* Copyright 2012-%s, Plotly, Inc.\n* All rights reserved.\n* Licensed under the MIT license\n*/\n' "$YEAR"
  printf '(\n function(root, factory) {\n  if (typeof module === "object" && module.exports) {\n   module.exports = factory();\n  } else {\n   root.moduleName = factory();\n  }\n} (typeof self !== "undefined" ? self : this, () => {\n'
  cat bundle.min.js
  printf '\nwindow.Plotly = Plotly;\nreturn Plotly;\n}));\n'
} > "$OUT"
cp node_modules/plotly.js/LICENSE "$LICENSE_OUT"
echo "wrote $OUT ($(wc -c < "$OUT") bytes) and $LICENSE_OUT"
