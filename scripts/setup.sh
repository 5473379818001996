#!/usr/bin/env bash
# Installs every system package AMK needs. Idempotent: when everything is
# already present it only checks and returns in about a second.
set -euo pipefail

PKGS=(
  # Toolchain and build.
  cmake ninja-build g++ lld-22 clang-22 libclang-rt-22-dev pkgconf
  # LLVM/MLIR 22 (the -tools packages are required by find_package(MLIR)).
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # ONNX protobuf schema and parser.
  libonnx-dev libprotobuf-dev protobuf-compiler
  # Libraries.
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libzstd-dev
  # Microkernels of the runtime (GEMM, convolution blocks).
  libxsmm-dev
  # oneDNN: only the int8 library comparison (amk-runtime-bench int8-libs,
  # docs/quantization.md) links it.
  libdnnl-dev
  # ImageDecoder (stb_image) and RegexFullMatch (RE2, the syntax ONNX names).
  libstb-dev libre2-dev
  # Conformance data and the model zoo generator.
  libonnx-testdata python3-torch python3-torchvision python3-onnx python3-numpy
  # The trained models of the int8 accuracy check (scikit-learn's digits).
  python3-sklearn
  # An optimized BLAS behind Debian's torch and numpy (both call the
  # libblas.so.3 alternative, which is otherwise the reference BLAS at
  # ~5 GFLOP/s; OpenBLAS: ~75 on 2 cores): training the test decoder
  # (utils/zoo/export_decoder.py llama_text) takes minutes instead of hours.
  libopenblas0-pthread
  # Miscellaneous.
  python3-yaml
)

SUDO_CMD=""
[ "$(id -u)" -eq 0 ] || SUDO_CMD="sudo"
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO_CMD apt-get update -qq
  $SUDO_CMD apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "[setup] all system packages present"
fi

# Node.js runs the ONNX Runtime reference (scripts/ort/). Debian 12's nodejs
# conflicts with the npm shipped on some images, so we only install it when
# no node is on PATH at all.
if ! command -v node >/dev/null 2>&1; then
  echo "[setup] installing nodejs and npm"
  $SUDO_CMD apt-get install -y -qq --no-install-recommends nodejs npm
fi

# ONNX Runtime for reference numerics and speed baselines, from the npm
# registry into third_party/ (not committed). --ignore-scripts: the package's
# install step downloads GPU libraries and fails offline.
ORT_VERSION=1.30.0
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORT_DIR="$ROOT/third_party"
if [ ! -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ] ||
   ! grep -q "\"version\": \"$ORT_VERSION\"" "$ORT_DIR/node_modules/onnxruntime-node/package.json"; then
  echo "[setup] installing onnxruntime-node@$ORT_VERSION"
  mkdir -p "$ORT_DIR"
  (cd "$ORT_DIR" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
     --prefix "$ORT_DIR" "onnxruntime-node@$ORT_VERSION" >/dev/null)
else
  echo "[setup] onnxruntime-node $ORT_VERSION present"
fi
