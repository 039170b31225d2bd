import type { InstanceType } from '../../../contracts/instanceValues';

/** How the console names the engines. */
export const typeLabels: Record<InstanceType, string> = { pg: 'PostgreSQL', etcd: 'etcd' };

/** For lists that carry the type as a plain string: an unknown type is shown as it came. */
export const typeLabel = (type: InstanceType | string) => typeLabels[type as InstanceType] ?? type;
