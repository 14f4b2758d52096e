{{/*
The namespace the operator runs in: namespace, or the release's namespace.
*/}}
{{- define "ec2-operator.namespace" -}}
{{- .Values.namespace | default .Release.Namespace -}}
{{- end }}

{{/*
The manager's image, pinned by digest unless only a tag is given.
*/}}
{{- define "ec2-operator.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ required "image.digest or image.tag is required" .Values.image.tag }}
{{- end -}}
{{- end }}

{{/*
The service account's annotations: the IRSA role and serviceAccount.annotations.
*/}}
{{- define "ec2-operator.serviceAccountAnnotations" -}}
{{- $annotations := deepCopy .Values.serviceAccount.annotations -}}
{{- if eq .Values.credentials.mode "irsa" -}}
{{- $_ := set $annotations "eks.amazonaws.com/role-arn" (required "credentials.irsa.roleARN is required with credentials.mode=irsa" .Values.credentials.irsa.roleARN) -}}
{{- end -}}
{{- with $annotations }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/*
The manager's environment beyond what kustomize sets: the AWS settings, the
credentials Secret and extraEnv.
*/}}
{{- define "ec2-operator.env" -}}
{{- with .Values.aws.extraRegions }}
- name: EXTRA_REGIONS
  value: {{ join "," . | quote }}
{{- end }}
{{- with .Values.aws.endpoints.ec2 }}
- name: AWS_ENDPOINT_URL_EC2
  value: {{ . | quote }}
{{- end }}
{{- with .Values.aws.endpoints.sts }}
- name: AWS_ENDPOINT_URL_STS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.aws.endpoints.sqs }}
- name: AWS_ENDPOINT_URL_SQS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.aws.eventsQueueURL }}
- name: EVENTS_QUEUE_URL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.aws.apiLimits }}
- name: AWS_API_LIMITS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.aws.rateLimit }}
- name: AWS_RATE_LIMIT
  value: {{ . | toString | quote }}
{{- end }}
{{- with .Values.aws.maxAttempts }}
- name: AWS_MAX_ATTEMPTS
  value: {{ . | toString | quote }}
{{- end }}
{{- with .Values.clusterID }}
- name: CLUSTER_ID
  value: {{ . | quote }}
{{- end }}
{{- if eq .Values.credentials.mode "secret" }}
{{- $secret := required "credentials.secret.name is required with credentials.mode=secret" .Values.credentials.secret.name }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ .Values.credentials.secret.accessKeyIDKey }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ .Values.credentials.secret.secretAccessKeyKey }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
