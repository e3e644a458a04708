# Sourced by the project's scripts: finds a JDK >= 21 and exports JAVA_HOME, or explains what is missing.
# Order: $JAVA_HOME if it is new enough, then the usual install locations, then `java` on PATH.

polyglot_sandbox_jdk_version() { # prints the feature version of the JDK at $1, or nothing
  local java="$1/bin/java" line
  [ -x "$java" ] && [ -x "$1/bin/javac" ] || return 1
  line=$("$java" -XshowSettings:properties -version 2>&1 | grep -m1 'java.specification.version') || return 1
  line=${line##*= }
  printf '%s\n' "${line%%.*}"
}

polyglot_sandbox_find_jdk() {
  local min=21 candidate v best="" best_v=0
  if [ -n "${JAVA_HOME:-}" ]; then
    v=$(polyglot_sandbox_jdk_version "$JAVA_HOME") || v=0
    if [ "${v:-0}" -ge "$min" ]; then
      printf '%s\n' "$JAVA_HOME"; return 0
    fi
    echo "note: JAVA_HOME=$JAVA_HOME is not a JDK >= $min; looking elsewhere" >&2
  fi
  for candidate in /usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/lib/jvm/* "$HOME"/.sdkman/candidates/java/* \
      /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$candidate" ] || continue
    v=$(polyglot_sandbox_jdk_version "$candidate") || continue
    if [ "${v:-0}" -ge "$min" ] && [ "$v" -gt "$best_v" ]; then best="$candidate"; best_v="$v"; fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    v=$(polyglot_sandbox_jdk_version "$candidate") || v=0
    [ "${v:-0}" -ge "$min" ] && best="$candidate"
  fi
  if [ -z "$best" ]; then
    echo "error: polyglot-sandbox needs a JDK $min or newer (JDK 25 recommended, with JVMCI)." >&2
    echo "       None found in JAVA_HOME, /usr/lib/jvm, /opt or on PATH (found: $(java -version 2>&1 | head -1))." >&2
    echo "       Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
    return 1
  fi
  printf '%s\n' "$best"
}
