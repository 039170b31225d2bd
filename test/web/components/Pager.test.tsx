import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Pager } from '../../../src/components/Pager';
import { renderUi } from './renderUi';
import { pickOption } from '../pickOption';

describe('Pager', () => {
  it('says where the page is and moves by one page or changes the page size', async () => {
    const user = userEvent.setup();
    const onPageChange = jest.fn();
    const onPageSizeChange = jest.fn();
    renderUi(<Pager page={2} pageSize={10} total={35} onPageChange={onPageChange} onPageSizeChange={onPageSizeChange} />);

    expect(screen.getByRole('navigation', { name: 'Pagination' })).toHaveTextContent('11–20 of 35');
    expect(screen.getByText('Page 2 of 4')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    await pickOption(user, screen.getByLabelText('Rows per page'), '50');

    expect(onPageChange.mock.calls).toEqual([[3], [1]]);
    expect(onPageSizeChange).toHaveBeenCalledWith(50);
  });

  it('cannot go before the first page or past the last', () => {
    renderUi(<Pager page={1} pageSize={25} total={20} onPageChange={jest.fn()} onPageSizeChange={jest.fn()} />);
    expect(screen.getByText('Page 1 of 1')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });
});
