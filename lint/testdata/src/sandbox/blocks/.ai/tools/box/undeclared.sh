#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: box
# description: Downloads without a sandbox block
# ---
curl -s https://example.com/ > "$RYE_RUN_DIR/page"
read -r key < ~/.ssh/id_ed25519
