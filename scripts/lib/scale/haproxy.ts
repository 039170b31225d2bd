/**
 * The scale example's HAProxy configuration (deploy/scale/haproxy.cfg is this with the default
 * ports): round robin over the API servers, a browser kept to one by a cookie, each server checked
 * on GET /healthz every second, out after 2 failed checks and back after 1 good one.
 */
export function haproxyConfig(port: number, servers: Array<{ name: string; port: number }>): string {
  return `# The scale example's front (npm run example:scale): two Warden API servers on one machine.
# Written by scripts/lib/scale/haproxy.ts; deploy/haproxy/warden.cfg is the multi-host one.
global
  maxconn 2000

defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  # The console's hub is a WebSocket that stays open while the console does.
  timeout tunnel 1h
  # A request whose server went away is sent to the other one instead of failing.
  option redispatch
  retries 2

frontend console
  bind 127.0.0.1:${port}
  default_backend servers

backend servers
  balance roundrobin
  # A browser keeps to one server: the hub's negotiate and its WebSocket must reach the same one
  # (the connection's token and replay buffer live in that server). Redispatch moves it when it dies.
  cookie warden_server insert indirect nocache httponly
  option httpchk GET /healthz
  http-check expect status 200
  default-server inter 1s fall 2 rise 1
${servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check cookie ${server.name}`).join('\n')}
`;
}
