#!/bin/bash
# Starts one KRaft broker+controller the way the apache/kafka image does: every KAFKA_<NAME>
# variable becomes the server property <name> (lower case; _ becomes ., __ becomes _, ___
# becomes -), CLUSTER_ID formats the storage on first start. The JVM's own variables
# (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_OPTS, ...) are not properties.
set -euo pipefail
config=/var/lib/kafka/server.properties
data=/var/lib/kafka/data
jvm_names=" KAFKA_HEAP_OPTS KAFKA_JVM_PERFORMANCE_OPTS KAFKA_OPTS KAFKA_LOG4J_OPTS KAFKA_GC_LOG_OPTS KAFKA_JMX_OPTS KAFKA_DEBUG "
{
  printf 'log.dirs=%s\n' "$data"
  for name in $(compgen -e); do
    [[ "$name" == KAFKA_* && "$jvm_names" != *" $name "* ]] || continue
    property="$(printf '%s' "${name#KAFKA_}" | tr '[:upper:]' '[:lower:]' |
      sed -e 's/___/-/g; s/__/@/g; s/_/./g; s/@/_/g')"
    printf '%s=%s\n' "$property" "${!name}"
  done
} >"$config"
java=(java ${KAFKA_HEAP_OPTS:--Xmx512m} -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties -cp "/opt/kafka/libs/*")
if [[ ! -f "$data/meta.properties" ]]; then
  "${java[@]}" kafka.tools.StorageTool format --ignore-formatted \
    -t "${CLUSTER_ID:?CLUSTER_ID is required to format the storage}" -c "$config"
fi
# shellcheck disable=SC2086 # option lists
exec "${java[@]}" ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:TieredStopAtLevel=1 -Djava.awt.headless=true} \
  ${KAFKA_OPTS:-} kafka.Kafka "$config"
