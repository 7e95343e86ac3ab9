import { busyboxBaseTag } from '../lib/oci/base-image.js';
for (let i = 0; i < 5; i++) { const t = performance.now(); const c = process.cpuUsage(); busyboxBaseTag(); const u = process.cpuUsage(c); console.log((performance.now() - t).toFixed(0), 'ms wall', ((u.user + u.system) / 1000).toFixed(0), 'ms cpu (own)'); }
