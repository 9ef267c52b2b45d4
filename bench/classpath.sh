# Sourced by bench/run and bench/soak. snapshot_classpath ROOT DIR: copies lakesink's own jars and
# classes (bench's runtime classpath) into DIR/lib and prints the classpath over the copies, so a
# rebuild or install elsewhere during a run (minutes) cannot swap classes under the running JVMs.
# Third-party jars are used in place.
snapshot_classpath() {
  local root="$1" dir="$2" cp n=0 e copy
  mkdir -p "$dir/lib"
  cp -r "$root/bench/target/classes" "$dir/lib/0-bench-classes"
  cp="$dir/lib/0-bench-classes"
  IFS=: read -ra entries <<<"$(cat "$root/bench/target/classpath.txt")"
  for e in "${entries[@]}"; do
    case "$e" in
      */io/lakesink/* | "$root"/*)
        n=$((n + 1))
        copy="$dir/lib/$n-$(basename "$e")"
        cp -r "$e" "$copy"
        cp="$cp:$copy" ;;
      *) cp="$cp:$e" ;;
    esac
  done
  echo "$cp"
}
