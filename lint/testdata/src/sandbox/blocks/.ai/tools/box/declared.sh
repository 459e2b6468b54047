#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: box
# description: Declares what it does
# sandbox:
#   filesystem:
#     read: ["{home}/.config/box"]
#   network: [":443"]
#   subprocess: true
# ---
curl -s https://example.com/ | wc -c
read -r conf < "$HOME/.config/box/conf"
