{{/* Values that would crash-loop a pod fail here instead, naming the value. */}}
{{- define "cl.validate" -}}
{{- $v := .Values -}}
{{- if not $v.kafka.bootstrapServers -}}
{{- fail "kafka.bootstrapServers is required (KAFKA_BOOTSTRAP_SERVERS), e.g. my-cluster-kafka-bootstrap.kafka:9093" -}}
{{- end -}}
{{- if and (not $v.redis.url) (not $v.redis.host) -}}
{{- fail "redis.url or redis.host is required (REDIS_URL), e.g. redis://redis-master.redis:6379/0" -}}
{{- end -}}
{{- if and $v.redis.url (not (regexMatch "^rediss?://" $v.redis.url)) -}}
{{- fail (printf "redis.url must start with redis:// or rediss:// (got %q)" $v.redis.url) -}}
{{- end -}}
{{- if and $v.redis.url (regexMatch "^rediss?://[^/@]*:[^/@]*@" $v.redis.url) -}}
{{- fail "redis.url must not carry a password: put it in redis.password or redis.existingSecret" -}}
{{- end -}}
{{- if and $v.redis.url $v.redis.tls.enabled (not (hasPrefix "rediss://" $v.redis.url)) -}}
{{- fail "redis.tls.enabled is true but redis.url does not start with rediss://" -}}
{{- end -}}
{{- if include "cl.kafkaSasl" . -}}
{{- if not $v.kafka.sasl.username -}}
{{- fail (printf "kafka.sasl.username is required with kafka.securityProtocol=%s" $v.kafka.securityProtocol) -}}
{{- end -}}
{{- if and (not $v.kafka.sasl.existingSecret) (not $v.kafka.sasl.password) -}}
{{- fail (printf "kafka.sasl.existingSecret or kafka.sasl.password is required with kafka.securityProtocol=%s" $v.kafka.securityProtocol) -}}
{{- end -}}
{{- end -}}
{{- if and (not (include "cl.kafkaTls" .)) (or $v.kafka.tls.caSecret $v.kafka.tls.ca $v.kafka.tls.clientSecret $v.kafka.tls.cert) -}}
{{- fail (printf "kafka.tls is set but kafka.securityProtocol=%s does not use TLS (SSL or SASL_SSL)" $v.kafka.securityProtocol) -}}
{{- end -}}
{{- if and $v.kafka.tls.cert (not $v.kafka.tls.key) -}}
{{- fail "kafka.tls.key is required with kafka.tls.cert" -}}
{{- end -}}
{{- if and (not (include "cl.redisTls" .)) (or $v.redis.tls.caSecret $v.redis.tls.ca) -}}
{{- fail "redis.tls.caSecret/redis.tls.ca is set but Redis is not on TLS (rediss:// or redis.tls.enabled)" -}}
{{- end -}}
{{- if eq $v.traceRecorder.store "postgresql" -}}
{{- if not $v.postgresql.url -}}
{{- fail "postgresql.url is required with traceRecorder.store=postgresql (TRACE_RECORDER_DATABASE_URL)" -}}
{{- end -}}
{{- if not (hasPrefix "postgresql://" $v.postgresql.url) -}}
{{- fail (printf "postgresql.url must start with postgresql:// (got %q)" $v.postgresql.url) -}}
{{- end -}}
{{- else if gt (int $v.traceRecorder.replicas) 1 -}}
{{- fail "traceRecorder.replicas > 1 needs traceRecorder.store=postgresql (on sqlite each replica would keep its own store)" -}}
{{- end -}}
{{- if $v.traceRecorder.autoscaling.enabled -}}
{{- fail "traceRecorder.autoscaling is not supported: each replica owns a fixed share of the partitions (TRACE_RECORDER_REPLICA_COUNT); set traceRecorder.replicas" -}}
{{- end -}}
{{- if and $v.traceRecorder.persistence.enabled (ne $v.traceRecorder.store "sqlite") -}}
{{- fail "traceRecorder.persistence is for traceRecorder.store=sqlite (PostgreSQL keeps the view itself)" -}}
{{- end -}}
{{- if and (not $v.identity.existingSecret) (not $v.identity.accounts) (not $v.identity.testAccount.enabled) -}}
{{- fail "identity: give identity.existingSecret, identity.accounts or identity.testAccount.enabled=true (the gateway needs an identity file)" -}}
{{- end -}}
{{- if and $v.ingress.enabled (not $v.ingress.hosts) -}}
{{- fail "ingress.hosts needs at least one host when ingress.enabled" -}}
{{- end -}}
{{- range $key := list "gateway" "capabilityIndex" "toolExecutor" "traceRecorder" "ontologyQuery" "knowledgeBase" -}}
{{- $c := index $v $key -}}
{{- if and $c.autoscaling.enabled (gt (int $c.autoscaling.minReplicas) (int $c.autoscaling.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling.minReplicas (%v) is above %s.autoscaling.maxReplicas (%v)" $key $c.autoscaling.minReplicas $key $c.autoscaling.maxReplicas) -}}
{{- end -}}
{{- end -}}
{{- end -}}
