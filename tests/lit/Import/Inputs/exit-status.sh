# Runs a command, merges its stderr into stdout, then prints "exit=<status>"
# so that FileCheck can check the exact exit status.
"$@" 2>&1
echo "exit=$?"
