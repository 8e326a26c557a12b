# Sourced by the scripts of .ci/ that may install something (system packages,
# Node.js 20 for the extension's packaging, cargo-fuzz): they install only
# when asked, never on their own.
#
# Asked means: CI=true (how CI runs .ci/run; GitHub Actions sets it too) or
# SYNCSCOPE_INSTALL=1 (a person who wants the scripts to install for them).
# Otherwise a script that finds something missing prints the command that
# installs it and stops with status 1. SYNCSCOPE_NO_INSTALL=1 forbids
# installing even under CI.

install_asked() {
  [ -z "${SYNCSCOPE_NO_INSTALL:-}" ] || return 1
  [ "${SYNCSCOPE_INSTALL:-}" = 1 ] || [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]
}

# The line that tells a person how to let the script install.
install_hint() {
  echo "(or let the test command install them: SYNCSCOPE_INSTALL=1 bash .ci/test; CI=true does the same)"
}
