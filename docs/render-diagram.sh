#!/usr/bin/env bash
# Renders the creature example's rustdoc page, with its Mermaid diagram, to
# docs/creature-page.png: what README.md's picture was cropped from.
# Needs Chromium (Debian: apt-get install chromium) and npm. The page loads
# Mermaid from a CDN; here it loads the same release from the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
(cd "$work" && npm pack mermaid@11 --silent >/dev/null && tar xzf mermaid-*.tgz)
cargo doc -q --example creature --no-deps
page=target/doc/creature/struct.CreatureBrain.html
sed 's#<script type="module">import mermaid from "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs"; mermaid.initialize({ startOnLoad: true });</script>#<script src="file://'"$work"'/package/dist/mermaid.min.js"></script><script>mermaid.initialize({ startOnLoad: true });</script>#' \
    "$page" > "${page%.html}.local.html"
chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
    --window-size=1400,1500 --virtual-time-budget=5000 \
    --screenshot="$PWD/docs/creature-page.png" "file://$PWD/${page%.html}.local.html"
