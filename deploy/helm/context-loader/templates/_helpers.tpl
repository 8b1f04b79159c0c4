{{/*
Names, labels and the component table. Every setting name the chart renders is one a
settings class reads (each service's settings.py and bkn_common/infra/settings.py).
*/}}

{{- define "cl.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "cl.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "cl.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "cl.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cl.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "cl.labels" -}}
helm.sh/chart: {{ include "cl.chart" . }}
{{ include "cl.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: context-loader
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The components: values key → Kubernetes name, Python module, settings prefix, who uses
Redis and who calls its internal API. */}}
{{- define "cl.componentTable" -}}
gateway: {name: gateway, module: gateway, prefix: GATEWAY_, redis: true, checkpoints: false, callers: []}
capabilityIndex: {name: capability-index, module: capability_index, prefix: CAPABILITY_INDEX_, redis: false, checkpoints: true, callers: [gateway]}
toolExecutor: {name: tool-executor, module: tool_executor, prefix: TOOL_EXECUTOR_, redis: true, checkpoints: true, callers: [gateway]}
traceRecorder: {name: trace-recorder, module: trace_recorder, prefix: TRACE_RECORDER_, redis: true, checkpoints: false, callers: [gateway]}
ontologyQuery: {name: ontology-query, module: ontology_query, prefix: ONTOLOGY_QUERY_, redis: false, checkpoints: true, callers: [gateway]}
knowledgeBase: {name: knowledge-base, module: knowledge_base, prefix: KNOWLEDGE_BASE_, redis: true, checkpoints: true, callers: [gateway]}
{{- end -}}

{{/* The enabled components in a fixed order: a list of {key, name, module, prefix, ...}. */}}
{{- define "cl.components" -}}
{{- $table := fromYaml (include "cl.componentTable" .) -}}
{{- $out := list -}}
{{- range $key := list "gateway" "capabilityIndex" "toolExecutor" "traceRecorder" "ontologyQuery" "knowledgeBase" -}}
{{- $values := index $.Values $key -}}
{{- if or (ne $key "knowledgeBase") $values.enabled -}}
{{- $out = append $out (merge (dict "key" $key) (index $table $key)) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "items" $out) -}}
{{- end -}}

{{/* A component's values over the chart-wide defaults: (dict "root" $ "key" "gateway"). */}}
{{- define "cl.componentValues" -}}
{{- $own := deepCopy (index .root.Values .key) -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.defaults) $own) -}}
{{- end -}}

{{- define "cl.componentFullname" -}}
{{- printf "%s-%s" (include "cl.fullname" .root) .name -}}
{{- end -}}

{{- define "cl.image" -}}
{{- $repo := default .root.Values.image.repository .c.image.repository -}}
{{- $tag := default (default .root.Chart.AppVersion .root.Values.image.tag) .c.image.tag -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}

{{- define "cl.pullPolicy" -}}
{{- default .root.Values.image.pullPolicy .c.image.pullPolicy -}}
{{- end -}}

{{- define "cl.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "cl.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret the chart creates for material given as values. */}}
{{- define "cl.secretName" -}}
{{- include "cl.fullname" . -}}
{{- end -}}

{{/* The hook copy of the Kafka material (hooks run before the release's Secrets exist). */}}
{{- define "cl.hookSecretName" -}}
{{- printf "%s-hook" (include "cl.fullname" .) -}}
{{- end -}}

{{- define "cl.kafkaCreatesSecret" -}}
{{- $k := .Values.kafka -}}
{{- if or (and $k.sasl.password (not $k.sasl.existingSecret)) (and $k.tls.ca (not $k.tls.caSecret)) (and $k.tls.cert (not $k.tls.clientSecret)) -}}true{{- end -}}
{{- end -}}

{{- define "cl.redisUrl" -}}
{{- $r := .Values.redis -}}
{{- if $r.url -}}
{{- $r.url -}}
{{- else -}}
{{- printf "%s://%s:%v/%v" (ternary "rediss" "redis" $r.tls.enabled) $r.host $r.port $r.db -}}
{{- end -}}
{{- end -}}

{{/* The Redis port the NetworkPolicies open: the URL's, else redis.port. */}}
{{- define "cl.redisPort" -}}
{{- $port := regexReplaceAll "^rediss?://(?:[^@/]*@)?(?:\\[[^\\]]*\\]|[^:/]*)(?::([0-9]+))?.*$" (include "cl.redisUrl" .) "${1}" -}}
{{- default "6379" $port -}}
{{- end -}}

{{- define "cl.kafkaSasl" -}}
{{- if has .Values.kafka.securityProtocol (list "SASL_PLAINTEXT" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{- define "cl.kafkaTls" -}}
{{- if has .Values.kafka.securityProtocol (list "SSL" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{- define "cl.redisTls" -}}
{{- if hasPrefix "rediss://" (include "cl.redisUrl" .) -}}true{{- end -}}
{{- end -}}

{{/* Environment every process shares (services and clctl). $secret: the Secret holding material
created from values (the release's, or the hook copy). */}}
{{- define "cl.kafkaEnv" -}}
{{- $root := .root -}}
{{- $k := $root.Values.kafka -}}
{{- $created := .secret -}}
- name: KAFKA_BOOTSTRAP_SERVERS
  value: {{ $k.bootstrapServers | quote }}
- name: TOPIC_PREFIX
  value: {{ $k.topicPrefix | quote }}
{{- if ne $k.securityProtocol "PLAINTEXT" }}
- name: KAFKA_SECURITY_PROTOCOL
  value: {{ $k.securityProtocol | quote }}
{{- end }}
{{- if include "cl.kafkaSasl" $root }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $k.sasl.mechanism | quote }}
- name: KAFKA_SASL_USERNAME
  value: {{ $k.sasl.username | quote }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ default $created $k.sasl.existingSecret }}
      key: {{ ternary $k.sasl.passwordKey "kafka-sasl-password" (not (empty $k.sasl.existingSecret)) }}
{{- end }}
{{- if and (include "cl.kafkaTls" $root) (or $k.tls.caSecret $k.tls.ca) }}
- name: KAFKA_SSL_CAFILE
  value: /etc/context-loader/kafka/ca.crt
{{- end }}
{{- if and (include "cl.kafkaTls" $root) (or $k.tls.clientSecret $k.tls.cert) }}
- name: KAFKA_SSL_CERTFILE
  value: /etc/context-loader/kafka/user.crt
- name: KAFKA_SSL_KEYFILE
  value: /etc/context-loader/kafka/user.key
{{- end }}
{{- end -}}

{{/* Projected sources of the Kafka files (CA, client certificate). */}}
{{- define "cl.kafkaFileSources" -}}
{{- $root := .root -}}
{{- $k := $root.Values.kafka -}}
{{- if include "cl.kafkaTls" $root }}
{{- if $k.tls.caSecret }}
- secret:
    name: {{ $k.tls.caSecret }}
    items: [{key: {{ $k.tls.caKey | quote }}, path: kafka/ca.crt}]
{{- else if $k.tls.ca }}
- secret:
    name: {{ .secret }}
    items: [{key: kafka-ca.crt, path: kafka/ca.crt}]
{{- end }}
{{- if $k.tls.clientSecret }}
- secret:
    name: {{ $k.tls.clientSecret }}
    items:
      - {key: {{ $k.tls.certKey | quote }}, path: kafka/user.crt}
      - {key: {{ $k.tls.keyKey | quote }}, path: kafka/user.key}
{{- else if $k.tls.cert }}
- secret:
    name: {{ .secret }}
    items:
      - {key: kafka-user.crt, path: kafka/user.crt}
      - {key: kafka-user.key, path: kafka/user.key}
{{- end }}
{{- end }}
{{- end -}}

{{- define "cl.redisEnv" -}}
{{- $r := .Values.redis -}}
- name: REDIS_URL
  value: {{ include "cl.redisUrl" . | quote }}
{{- if or $r.existingSecret $r.password }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ default (include "cl.secretName" .) $r.existingSecret }}
      key: {{ ternary $r.passwordKey "redis-password" (not (empty $r.existingSecret)) }}
{{- end }}
{{- if and (include "cl.redisTls" .) (or $r.tls.caSecret $r.tls.ca) }}
- name: REDIS_SSL_CA_CERTS
  value: /etc/context-loader/redis/ca.crt
{{- end }}
{{- end -}}

{{- define "cl.redisFileSources" -}}
{{- $r := .Values.redis -}}
{{- if include "cl.redisTls" . }}
{{- if $r.tls.caSecret }}
- secret:
    name: {{ $r.tls.caSecret }}
    items: [{key: {{ $r.tls.caKey | quote }}, path: redis/ca.crt}]
{{- else if $r.tls.ca }}
- secret:
    name: {{ include "cl.secretName" . }}
    items: [{key: redis-ca.crt, path: redis/ca.crt}]
{{- end }}
{{- end }}
{{- end -}}

{{- define "cl.otelEnv" -}}
{{- $o := .root.Values.otel -}}
{{- if $o.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $o.endpoint | quote }}
{{- end }}
{{- if $o.sdkDisabled }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- end }}
{{- if not $o.spanExportToKafka }}
- name: SPAN_EXPORT_TO_KAFKA
  value: "false"
{{- end }}
{{- $attrs := list (printf "service.namespace=%s" .root.Release.Namespace) }}
{{- range $k, $v := $o.resourceAttributes }}
{{- $attrs = append $attrs (printf "%s=%v" $k $v) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $attrs | quote }}
- name: LOG_LEVEL
  value: {{ .root.Values.logLevel | quote }}
{{- end -}}

{{- define "cl.internalSecretEnv" -}}
{{- $s := .Values.internalSecret -}}
- name: MESH_INTERNAL_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ default (include "cl.secretName" .) $s.existingSecret }}
      key: {{ ternary $s.key "mesh-internal-secret" (not (empty $s.existingSecret)) }}
{{- if or (and $s.existingSecret $s.previousKey) (and (not $s.existingSecret) $s.previous) }}
- name: MESH_INTERNAL_SECRET_PREVIOUS
  valueFrom:
    secretKeyRef:
      name: {{ default (include "cl.secretName" .) $s.existingSecret }}
      key: {{ ternary $s.previousKey "mesh-internal-secret-previous" (not (empty $s.existingSecret)) }}
{{- end }}
{{- end -}}

{{- define "cl.identitySecretName" -}}
{{- default (printf "%s-identity" (include "cl.fullname" .)) .Values.identity.existingSecret -}}
{{- end -}}

{{/* Pod-level pieces shared by Deployments, Jobs and the test pod. */}}
{{- define "cl.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* One egress rule: (dict "to" peers "ports" [ints] "what" "Kafka"); no peers: any destination. */}}
{{- define "cl.egressRule" -}}
# {{ .what }}
- ports:
    {{- range .ports }}
    - {port: {{ . }}, protocol: TCP}
    {{- end }}
  {{- with .to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/* DNS: port 53 to any destination (pods resolve Services and brokers). */}}
{{- define "cl.dnsEgress" -}}
{{- if .Values.networkPolicy.egress.dns -}}
- ports:
    - {port: 53, protocol: UDP}
    - {port: 53, protocol: TCP}
{{- end -}}
{{- end -}}

{{/* tool-executor's seccompProfile: the chart's Localhost profile (files/tool-executor-seccomp.json)
     under the Security Profiles Operator's path when its API exists, else under context-loader/. */}}
{{- define "cl.toolExecutorSeccomp" -}}
{{- $p := .Values.toolExecutor.seccompProfile -}}
{{- if eq $p.type "Localhost" -}}
{{- $default := "context-loader/tool-executor-seccomp.json" -}}
{{- if .Capabilities.APIVersions.Has "security-profiles-operator.x-k8s.io/v1beta1/SeccompProfile" -}}
{{- $default = printf "operator/%s/%s-tool-executor.json" .Release.Namespace (include "cl.fullname" .) -}}
{{- end -}}
{type: Localhost, localhostProfile: {{ default $default $p.localhostProfile | quote }}}
{{- else -}}
{type: RuntimeDefault}
{{- end -}}
{{- end -}}

{{/* A component's container securityContext: the chart-wide one, tool-executor's seccompProfile,
     then the component's own block (key by key). */}}
{{- define "cl.containerSecurityContext" -}}
{{- $context := deepCopy .root.Values.containerSecurityContext -}}
{{- if eq .comp.key "toolExecutor" -}}
{{- $_ := set $context "seccompProfile" (fromYaml (include "cl.toolExecutorSeccomp" .root)) -}}
{{- end -}}
{{- toYaml (mergeOverwrite $context (default dict .c.containerSecurityContext)) -}}
{{- end -}}
