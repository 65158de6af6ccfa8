/** OUTBOUND_ALLOW_HOSTS for loopback peers: the ports a test's servers listen on. */
export const allowLoopback = (...ports: number[]) => ports.map((p) => `127.0.0.1:${p}`).join(',');
