/**
 * Test helper: a strict walk over the Kubernetes fields the examples use. The API server (and
 * `kubectl apply`) drop unknown fields silently, so `failureThreshhold: 1500` would leave the
 * default of 3 and kill a loading pod in 30 s; this allow-list catches it offline.
 */
type Shape = 'string' | 'number' | 'boolean' | 'map' | 'int-or-string' | Shape[] | { [key: string]: Shape };

const probe: Shape = {
  httpGet: { path: 'string', port: 'int-or-string', scheme: 'string' },
  exec: { command: ['string'] },
  initialDelaySeconds: 'number',
  periodSeconds: 'number',
  timeoutSeconds: 'number',
  failureThreshold: 'number',
  successThreshold: 'number',
};

const container: Shape = {
  name: 'string',
  image: 'string',
  workingDir: 'string',
  command: ['string'],
  args: ['string'],
  env: [{ name: 'string', value: 'string', valueFrom: { secretKeyRef: { name: 'string', key: 'string' } } }],
  ports: [{ name: 'string', containerPort: 'number', protocol: 'string' }],
  startupProbe: probe,
  readinessProbe: probe,
  livenessProbe: probe,
  resources: { limits: 'map', requests: 'map' },
  volumeMounts: [{ name: 'string', mountPath: 'string', readOnly: 'boolean' }],
  // Only on an init container: Always makes it a native sidecar (Kubernetes 1.29+).
  restartPolicy: 'string',
};

const metadata: Shape = { name: 'string', namespace: 'string', labels: 'map', annotations: 'map' };

const podTemplate: Shape = {
  metadata: { labels: 'map', annotations: 'map' },
  spec: {
    initContainers: [container],
    containers: [container],
    volumes: [{ name: 'string', emptyDir: { medium: 'string', sizeLimit: 'string' } }],
    terminationGracePeriodSeconds: 'number',
  },
};

export const SHAPES: Record<string, Shape> = {
  Deployment: {
    apiVersion: 'string',
    kind: 'string',
    metadata,
    spec: {
      replicas: 'number',
      selector: { matchLabels: 'map' },
      template: podTemplate,
    },
  },
  // leaderworkerset.x-k8s.io/v1 (https://lws.sigs.k8s.io/docs/reference/leaderworkerset.v1/): the fields the examples use.
  LeaderWorkerSet: {
    apiVersion: 'string',
    kind: 'string',
    metadata,
    spec: {
      replicas: 'number',
      startupPolicy: 'string',
      leaderWorkerTemplate: { size: 'number', restartPolicy: 'string', leaderTemplate: podTemplate, workerTemplate: podTemplate },
    },
  },
  PodMonitor: {
    apiVersion: 'string',
    kind: 'string',
    metadata,
    spec: { selector: { matchLabels: 'map' }, podMetricsEndpoints: [{ port: 'string', path: 'string', interval: 'string' }] },
  },
  PrometheusRule: {
    apiVersion: 'string',
    kind: 'string',
    metadata,
    spec: { groups: [{ name: 'string', interval: 'string', rules: [{ alert: 'string', record: 'string', expr: 'string', for: 'string', labels: 'map', annotations: 'map' }] }] },
  },
};

/** Every field not in the shape, or of the wrong kind, as `spec.template...: unknown key "x"`. */
export function strictProblems(value: unknown, shape: Shape, path = ''): string[] {
  const at = path || '(top)';
  if (shape === 'string') return typeof value === 'string' ? [] : [`${at}: expected a string, found ${JSON.stringify(value)}`];
  if (shape === 'number') return Number.isInteger(value) ? [] : [`${at}: expected an integer, found ${JSON.stringify(value)}`];
  if (shape === 'boolean') return typeof value === 'boolean' ? [] : [`${at}: expected true or false`];
  if (shape === 'int-or-string') return typeof value === 'string' || Number.isInteger(value) ? [] : [`${at}: expected a port number or name`];
  if (shape === 'map') {
    if (!isObject(value)) return [`${at}: expected a map`];
    return Object.entries(value).filter(([, v]) => typeof v !== 'string').map(([k]) => `${at}.${k}: map values must be strings (quote them)`);
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${at}: expected a list`];
    return value.flatMap((item, index) => strictProblems(item, shape[0]!, `${path}[${index}]`));
  }
  if (!isObject(value)) return [`${at}: expected a map of fields`];
  return Object.entries(value).flatMap(([key, item]) => {
    const inner = shape[key];
    const where = path ? `${path}.${key}` : key;
    return inner === undefined ? [`${where}: unknown key "${key}" (allowed: ${Object.keys(shape).join(', ')})`] : strictProblems(item, inner, where);
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
