#!/bin/sh
# ---
# version: "2.0.1"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: ops
# description: Mirror release archives, checking each one's hash
# config_schema:
#   type: object
#   properties:
#     version: {type: string}
#   required: [version]
# ---
set -eu
v="$RYE_PARAM_VERSION"
base="https://releases.example.com/acme/v$v"
dest="$(mktemp -d)"
trap 'rm -rf "$dest"' EXIT
for arch in amd64 arm64; do
  f="acme-linux-$arch.tar.gz"
  wget -q -O "$dest/$f" "$base/$f"
  wget -q -O "$dest/$f.sha256" "$base/$f.sha256"
  (cd "$dest" && sha256sum -c "$f.sha256")
done
rsync -a "$dest"/ /srv/mirror/acme/"v$v"/
echo '{"success": true}'
