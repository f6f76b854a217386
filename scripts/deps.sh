#!/usr/bin/env bash
# Installs every build and test dependency of worldkit from Debian packages.
# Idempotent: when everything is already installed it only asks dpkg and exits.
set -euo pipefail

packages=(
  gcc g++ make cmake ninja-build pkg-config
  protobuf-c-compiler libprotobuf-c-dev
  libxml2-dev
  libsdformat-dev liburdfdom-dev libmujoco-dev libqhull-dev libassimp-dev
  libgrpc-dev libabsl-dev protobuf-compiler protobuf-compiler-grpc
  libgrpc++-dev libprotobuf-dev
  libsqlite3-dev
  libpq-dev postgresql-15
  libre2-dev
  python3-grpcio python3-protobuf python3-websocket python3-pil
  openssl libssl-dev
  libwebsockets-dev libjs-three chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
