import { formatDate, formatDateTime } from '../../../src/components/DateTime';

describe('date formatting (SPEC §9: mm/dd/yy)', () => {
  it('shows a calendar day as that day, wherever the reader is', () => {
    expect(formatDate('2025-03-05')).toBe('03/05/25');
    expect(formatDate('2009-12-31')).toBe('12/31/09');
  });

  it('shows an instant as its local day and time, to the minute or the second', () => {
    const at = new Date(2025, 0, 9, 7, 4, 3).toISOString();
    expect(formatDate(at)).toBe('01/09/25');
    expect(formatDateTime(at)).toBe('01/09/25 07:04');
    expect(formatDateTime(at, { seconds: true })).toBe('01/09/25 07:04:03');
  });
});
