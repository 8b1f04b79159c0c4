{{/* One clctl Job: (dict "root" $ "name" "topics" "hook" "pre-install,pre-upgrade" "what" "..."
"job" .Values.topics "secret" <Secret of values-given Kafka material> "serviceAccount" "default"
"command" (list ...) "env" <EnvVar YAML> "mounts" <VolumeMount YAML> "volumes" <Volume YAML>). */}}
{{- define "cl.clctlJob" -}}
{{- $root := .root -}}
{{- $kafkaFiles := include "cl.kafkaFileSources" (dict "root" $root "secret" .secret) -}}
# {{ .what }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "cl.fullname" $root }}-{{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "cl.labels" $root | nindent 4 }}
    app.kubernetes.io/component: clctl
  annotations:
    helm.sh/hook: {{ .hook }}
    helm.sh/hook-weight: "0"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ .job.backoffLimit }}
  activeDeadlineSeconds: {{ .job.activeDeadlineSeconds }}
  template:
    metadata:
      labels:
        {{- include "cl.selectorLabels" $root | nindent 8 }}
        app.kubernetes.io/component: clctl
    spec:
      restartPolicy: Never
      serviceAccountName: {{ .serviceAccount }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- include "cl.podSecurity" $root | nindent 6 }}
      containers:
        - name: clctl
          image: {{ include "cl.image" (dict "root" $root "c" (dict "image" dict)) | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command:
            {{- toYaml .command | nindent 12 }}
          env:
            {{- include "cl.kafkaEnv" (dict "root" $root "secret" .secret) | nindent 12 }}
            {{- with .env }}{{ . | nindent 12 }}{{ end }}
          resources:
            {{- toYaml .job.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
            {{- if $kafkaFiles }}
            - {name: secret-files, mountPath: /etc/context-loader, readOnly: true}
            {{- end }}
            {{- with .mounts }}{{ . | nindent 12 }}{{ end }}
      volumes:
        - name: tmp
          emptyDir: {sizeLimit: 64Mi}
        {{- if $kafkaFiles }}
        - name: secret-files
          projected:
            defaultMode: 0440
            sources:
              {{- $kafkaFiles | nindent 14 }}
        {{- end }}
        {{- with .volumes }}{{ . | nindent 8 }}{{ end }}
{{- end -}}
