#!/bin/sh
# ---
# version: "1.0.0"
echo hi
