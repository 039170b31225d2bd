import fs from 'node:fs';
import path from 'node:path';
import type { InstanceType } from '../../contracts/instanceValues';
import type { InstanceRuntime } from '../engines/engine';
import { removeInstanceLimits } from '../engines/confinement';
import { removeInstanceUser } from '../engines/instanceUsers';
import { keepGroupLimits } from './groupLimits';
import type { InstanceContext } from './instanceContext';

/**
 * A throwaway runtime for verification and sandboxes: a hidden folder beside the instances (the
 * engine user can reach it) and ports no instance gets until `dispose` stops and removes it. It runs
 * the tenant's code, so it gets the limits of `limitsOf`'s group (the instance it copies).
 */
export async function scratch(
  ctx: InstanceContext,
  type: InstanceType,
  name: string,
  limitsOf: string | null,
): Promise<{ rt: InstanceRuntime; dispose: () => Promise<void> }> {
  const ports = await ctx.ports.reserve(type === 'etcd' ? 2 : 1);
  // PostgreSQL's socket path (<dir>/run/.s.PGSQL.<port>) must stay within 107 bytes: 12 hex characters of
  // the name (a backup id, a run id) keep it short under any reasonable data dir and still tell scratches apart.
  const short = name.replace(/-/g, '').slice(0, 12);
  const rt: InstanceRuntime = { id: `scratch-${short}`, dir: path.join(ctx.instancesDir, `.scratch-${type}-${short}`), port: ports[0], peerPort: ports[1], scratch: true };
  const engine = ctx.engine(type);
  if (limitsOf !== null) {
    // The engine takes the folder over as it makes it; its limits are kept before anything runs in it.
    fs.mkdirSync(rt.dir, { recursive: true, mode: 0o700 });
    await keepGroupLimits(ctx, limitsOf, rt.dir);
  }
  const dispose = async () => {
    try {
      if (engine.pid(rt) !== null) await engine.stop(rt);
      fs.rmSync(rt.dir, { recursive: true, force: true });
      removeInstanceLimits(rt.dir);
      await removeInstanceUser(rt.id);
    } finally {
      ctx.ports.release(ports);
    }
  };
  return { rt, dispose };
}

/** Scratch instances a server stop cut off: stopped and removed at start. */
export async function removeLeftoverScratch(ctx: InstanceContext) {
  let names: string[];
  try {
    names = fs.readdirSync(ctx.instancesDir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^\.scratch-(pg|etcd)-/.exec(name);
    if (!match) continue;
    const engine = ctx.engine(match[1] as InstanceType);
    // The id `scratch` gave it, so its system user is found and removed too.
    const rt: InstanceRuntime = { id: `scratch-${name.slice(match[0].length)}`, dir: path.join(ctx.instancesDir, name), port: 0 };
    if (engine.pid(rt) !== null) await engine.stop(rt).catch(() => undefined);
    fs.rmSync(rt.dir, { recursive: true, force: true });
    removeInstanceLimits(rt.dir);
    try {
      await removeInstanceUser(rt.id);
    } catch {
      // A user still in use is left for an operator; the server starts anyway.
    }
  }
}
