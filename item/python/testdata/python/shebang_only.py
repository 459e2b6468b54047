#!/usr/bin/env python3
# rye:signed:2026-02-21T05:56:40Z:e38a83e8:FZyp==:f0ff50dacf109dea
