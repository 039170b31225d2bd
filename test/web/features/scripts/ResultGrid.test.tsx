import { screen, within } from '@testing-library/react';
import { plainRowLimit, ResultGrid } from '../../../../src/features/scripts/ResultGrid';
import { renderUi } from '../../components/renderUi';

const columns = [
  { name: 'id', type: 'int8' },
  { name: 'note', type: 'text' },
];

describe('ResultGrid', () => {
  it('heads each column with its name and type, and tells NULL from the text "NULL"', () => {
    renderUi(<ResultGrid label="Rows of statement 1" columns={columns} rows={[['1', 'NULL'], ['9007199254740993', null]]} />);
    const grid = within(screen.getByRole('table', { name: 'Rows of statement 1' }));
    expect(grid.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['id int8', 'note text']);
    const cells = grid.getAllByRole('cell');
    expect(cells.map((cell) => cell.textContent)).toEqual(['1', 'NULL', '9007199254740993', 'NULL']);
    // Only the SQL NULL is drawn as one (muted, italic); the string 'NULL' is plain text.
    expect(cells[1]).not.toHaveStyle({ fontStyle: 'italic' });
    expect(cells[3]).toHaveStyle({ fontStyle: 'italic' });
  });

  it('keeps only the rows in view in the document when the result is long', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [String(i + 1), `row ${i + 1}`]);
    renderUi(<ResultGrid label="Rows of statement 2" columns={columns} rows={rows} />);
    const grid = screen.getByRole('table', { name: 'Rows of statement 2' });
    // The grid still says how many rows there are (header included) …
    expect(grid).toHaveAttribute('aria-rowcount', '1001');
    // … while far fewer are rendered (jsdom has no layout: the viewport is empty, only the overscan shows).
    expect(within(grid).getAllByRole('row').length).toBeLessThan(plainRowLimit);
    expect(within(grid).getByRole('rowgroup', { name: 'Rows of statement 2, scrollable' })).toHaveAttribute('tabindex', '0');
  });
});
