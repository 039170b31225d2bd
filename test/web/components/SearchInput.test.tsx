import { act, fireEvent, screen } from '@testing-library/react';
import { SearchInput } from '../../../src/components/SearchInput';
import { renderUi } from './renderUi';

describe('SearchInput', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports the text once typing pauses for 300 ms', () => {
    const onChange = jest.fn();
    renderUi(<SearchInput label="Search users" value="" onChange={onChange} />);
    const box = screen.getByRole('searchbox', { name: 'Search users' });

    fireEvent.change(box, { target: { value: 'a' } });
    act(() => jest.advanceTimersByTime(200));
    fireEvent.change(box, { target: { value: 'ad' } });
    act(() => jest.advanceTimersByTime(299));
    expect(onChange).not.toHaveBeenCalled();

    act(() => jest.advanceTimersByTime(1));
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith('ad');
  });

  it('follows a value changed from outside (Back, a link) without reporting it', () => {
    const onChange = jest.fn();
    const { rerender } = renderUi(<SearchInput label="Search users" value="ada" onChange={onChange} />);
    expect(screen.getByRole('searchbox')).toHaveValue('ada');

    rerender(<SearchInput label="Search users" value="bob" onChange={onChange} />);
    act(() => jest.advanceTimersByTime(1000));
    expect(screen.getByRole('searchbox')).toHaveValue('bob');
    expect(onChange).not.toHaveBeenCalled();
  });
});
