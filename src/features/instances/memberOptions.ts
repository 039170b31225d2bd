import { pgClusterSizes } from '../../../contracts/clusters';

const standbys: Record<(typeof pgClusterSizes)[number], string> = { 2: 'a standby', 3: 'two standbys', 4: 'three standbys', 5: 'four standbys' };

/** A PostgreSQL instance's member counts: a single server, or a Patroni cluster of a leader and its standbys. */
export const pgMemberOptions = [
  { value: '1', label: '1 member (a single server)' },
  ...pgClusterSizes.map((size) => ({ value: String(size), label: `${size} members: a leader and ${standbys[size]}` })),
];
