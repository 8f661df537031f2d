#!/bin/bash
# Control: a guest test that fails must make run-vm report a failure.
echo "control: this guest test fails on purpose"
exit 3
