#!/usr/bin/env bash
# Placeholder until the fuzz target lands.
exit 0
