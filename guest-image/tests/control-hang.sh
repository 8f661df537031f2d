#!/bin/bash
# Control: a guest that never finishes must be stopped and reported as a hang.
echo "control: hanging on purpose"
sleep 100000
