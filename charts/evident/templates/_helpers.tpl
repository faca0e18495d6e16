{{/* Chart name, shortened to fit Kubernetes' 63-character names. */}}
{{- define "evident.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: <release>-evident unless the release name already contains the chart name. */}}
{{- define "evident.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "evident.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "evident.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: evident
{{- end }}

{{/* Selector labels of one component: call with (dict "ctx" . "component" "dataplane"). */}}
{{- define "evident.selectorLabels" -}}
app.kubernetes.io/name: {{ include "evident.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* image reference: call with (dict "image" .Values.x.image "ctx" .). */}}
{{- define "evident.image" -}}
{{- printf "%s:%s" .image.repository (default .ctx.Chart.AppVersion .image.tag) }}
{{- end }}

{{/* Names of the data plane's Services. */}}
{{- define "evident.dataplane.name" -}}
{{- printf "%s-dataplane" (include "evident.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "evident.dataplane.headless" -}}
{{- printf "%s-dataplane-grpc" (include "evident.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "evident.operator.name" -}}
{{- printf "%s-operator" (include "evident.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "evident.envoy.name" -}}
{{- printf "%s-envoy" (include "evident.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The env entries that read the Secret (admin key, database and Redis URLs). */}}
{{- define "evident.secretEnv" -}}
- name: EVIDENT_ADMIN_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secrets.name }}
      key: {{ .Values.secrets.keys.adminKey }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secrets.name }}
      key: {{ .Values.secrets.keys.databaseUrl }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secrets.name }}
      key: {{ .Values.secrets.keys.redisUrl }}
{{- end }}
