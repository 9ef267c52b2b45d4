# Sourced by bench/run and bench/soak. snapshot_classpath ROOT DIR: copies lakesink's own jars and
# classes (bench's runtime classpath) into DIR/lib and prints the classpath over the copies, so a
# rebuild or install elsewhere during a run (minutes) cannot swap classes under the running JVMs.
# Third-party jars are used in place. A directory of classes is copied as a jar: the JVM's class-data
# sharing archives classes from jars only (bench/run's CDS, as the distribution's launcher keeps one).
snapshot_classpath() {
  local root="$1" dir="$2" cp n=0 e copy
  mkdir -p "$dir/lib"
  jar cf "$dir/lib/0-bench-classes.jar" -C "$root/bench/target/classes" .
  cp="$dir/lib/0-bench-classes.jar"
  IFS=: read -ra entries <<<"$(cat "$root/bench/target/classpath.txt")"
  for e in "${entries[@]}"; do
    case "$e" in
      */io/lakesink/* | "$root"/*)
        n=$((n + 1))
        copy="$dir/lib/$n-$(basename "$e")"
        if [ -d "$e" ]; then
          copy="$copy.jar"
          jar cf "$copy" -C "$e" .
        else
          cp "$e" "$copy"
        fi
        cp="$cp:$copy" ;;
      *) cp="$cp:$e" ;;
    esac
  done
  echo "$cp"
}
