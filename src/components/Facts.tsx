import { DataList } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** Label–value pairs about one thing (a description list). */
export function Facts({ items }: { items: [label: string, value: ReactNode][] }) {
  return (
    <DataList.Root orientation="horizontal" gap="3">
      {items.map(([label, value]) => (
        <DataList.Item key={label}>
          <DataList.ItemLabel minW="36">{label}</DataList.ItemLabel>
          <DataList.ItemValue>{value}</DataList.ItemValue>
        </DataList.Item>
      ))}
    </DataList.Root>
  );
}
