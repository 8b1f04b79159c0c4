{{/* Each component's own settings (its prefix + a field of its settings class). */}}

{{- define "cl.serviceUrl" -}}
{{- $c := index .root.Values .key -}}
{{- $host := default (printf "%s-%s.%s.svc" (include "cl.fullname" .root) .name .root.Release.Namespace) .root.Values.internalHost -}}
{{- printf "http://%s:%v" $host $c.port -}}
{{- end -}}

{{- define "cl.env.gateway" -}}
{{- $g := .Values.gateway -}}
- name: GATEWAY_IDENTITY_FILE
  value: /etc/context-loader/identity/identity.yaml
- name: GATEWAY_CAPABILITY_INDEX_URL
  value: {{ include "cl.serviceUrl" (dict "root" . "key" "capabilityIndex" "name" "capability-index") | quote }}
- name: GATEWAY_TOOL_EXECUTOR_URL
  value: {{ include "cl.serviceUrl" (dict "root" . "key" "toolExecutor" "name" "tool-executor") | quote }}
- name: GATEWAY_TRACE_RECORDER_URL
  value: {{ include "cl.serviceUrl" (dict "root" . "key" "traceRecorder" "name" "trace-recorder") | quote }}
- name: GATEWAY_ONTOLOGY_QUERY_URL
  value: {{ include "cl.serviceUrl" (dict "root" . "key" "ontologyQuery" "name" "ontology-query") | quote }}
{{- if .Values.knowledgeBase.enabled }}
- name: GATEWAY_KNOWLEDGE_BASE_URL
  value: {{ include "cl.serviceUrl" (dict "root" . "key" "knowledgeBase" "name" "knowledge-base") | quote }}
{{- end }}
{{- if $g.publicUrl }}
- name: GATEWAY_PUBLIC_URL
  value: {{ $g.publicUrl | quote }}
{{- end }}
{{- if $g.executeSkillEnabled }}
- name: EXECUTE_SKILL_ENABLED
  value: "true"
{{- end }}
{{- if $g.rateLimit.enabled }}
- name: GATEWAY_RATE_LIMIT_ENABLED
  value: "true"
- name: GATEWAY_RATE_LIMIT_ACCOUNT_PER_SECOND
  value: {{ $g.rateLimit.accountPerSecond | quote }}
- name: GATEWAY_RATE_LIMIT_ACCOUNT_BURST
  value: {{ $g.rateLimit.accountBurst | quote }}
- name: GATEWAY_RATE_LIMIT_TOOL_PER_SECOND
  value: {{ $g.rateLimit.toolPerSecond | quote }}
- name: GATEWAY_RATE_LIMIT_TOOL_BURST
  value: {{ $g.rateLimit.toolBurst | quote }}
{{- end }}
{{- with $g.allowedOrigins }}
- name: GATEWAY_ALLOWED_ORIGINS
  value: {{ toJson . | quote }}
{{- end }}
{{- with $g.jwt.issuer }}
- name: GATEWAY_JWT_ISSUER
  value: {{ . | quote }}
{{- end }}
{{- with $g.jwt.audience }}
- name: GATEWAY_JWT_AUDIENCE
  value: {{ . | quote }}
{{- end }}
{{- with $g.jwt.jwksUrl }}
- name: GATEWAY_JWT_JWKS_URL
  value: {{ . | quote }}
{{- end }}
{{- if or $g.jwt.existingSecret $g.jwt.publicKey }}
- name: GATEWAY_JWT_PUBLIC_KEY_FILE
  value: /etc/context-loader/jwt/public.pem
{{- end }}
- name: GATEWAY_JWT_ROLE_CLAIM
  value: {{ $g.jwt.roleClaim | quote }}
- name: GATEWAY_JWT_OPERATOR_VALUES
  value: {{ toJson $g.jwt.operatorValues | quote }}
{{- end -}}

{{- define "cl.env.capabilityIndex" -}}
- name: CAPABILITY_INDEX_EMBEDDINGS
  value: {{ .Values.capabilityIndex.embeddings | quote }}
{{- end -}}

{{- define "cl.env.toolExecutor" -}}
- name: TOOL_EXECUTOR_DEFAULT_TIMEOUT_SECONDS
  value: {{ .Values.toolExecutor.defaultTimeoutSeconds | quote }}
- name: TOOL_EXECUTOR_MAX_OUTPUT_CHARS
  value: {{ .Values.toolExecutor.maxOutputChars | quote }}
- name: TOOL_EXECUTOR_SANDBOX
  value: {{ .Values.toolExecutor.sandbox | quote }}
- name: TOOL_EXECUTOR_SANDBOX_MAX_CONCURRENT
  value: {{ .Values.toolExecutor.sandboxMaxConcurrent | quote }}
- name: TOOL_EXECUTOR_SANDBOX_SECCOMP
  value: {{ .Values.toolExecutor.sandboxSeccomp | quote }}
{{- end -}}

{{- define "cl.env.traceRecorder" -}}
{{- $t := .Values.traceRecorder -}}
- name: TRACE_RECORDER_CAPTURE_ENABLED
  value: {{ $t.captureEnabled | quote }}
- name: TRACE_RECORDER_REDIS_PREFIX
  value: {{ default (printf "bkn:%strace:" .Values.kafka.topicPrefix) $t.redisPrefix | quote }}
- name: TRACE_RECORDER_STORE
  value: {{ $t.store | quote }}
- name: TRACE_RECORDER_REPLICA_COUNT
  value: {{ $t.replicas | quote }}
- name: TRACE_RECORDER_REPLICA_INDEX
  valueFrom:
    fieldRef:
      fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
{{- if eq $t.store "sqlite" }}
- name: TRACE_RECORDER_SQLITE_PATH
  value: /var/lib/context-loader/trace/trace.db
{{- else }}
- name: TRACE_RECORDER_DATABASE_URL
  value: {{ .Values.postgresql.url | quote }}
{{- with .Values.postgresql.schema }}
- name: TRACE_RECORDER_DATABASE_SCHEMA
  value: {{ . | quote }}
{{- end }}
{{- if or .Values.postgresql.existingSecret .Values.postgresql.password }}
- name: TRACE_RECORDER_DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ default (include "cl.secretName" .) .Values.postgresql.existingSecret }}
      key: {{ ternary .Values.postgresql.passwordKey "postgresql-password" (not (empty .Values.postgresql.existingSecret)) }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "cl.env.ontologyQuery" -}}
{{- end -}}

{{- define "cl.env.knowledgeBase" -}}
{{- end -}}
