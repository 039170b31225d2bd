import { act, screen } from '@testing-library/react';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { identityScreensAtRest } from '../../handlers/identityScreens';
import { instanceScreensAtRest } from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(() => Promise.all([import('../../../../src/features/instances/InstancesPage'), import('../../../../src/features/groups/GroupsPage')]), 30_000);

const server = setupMsw();
beforeEach(() => server.use(...instanceScreensAtRest(), ...identityScreensAtRest(), meHandler(admin)));

describe('scroll position between screens', () => {
  const scrollTo = jest.spyOn(window, 'scrollTo');
  afterAll(() => scrollTo.mockRestore());

  it('opens a new screen at its top, and Back returns to where the person was', async () => {
    const { router } = renderApp('/instances');
    expect(await screen.findByRole('heading', { level: 1, name: 'Instances' })).toBeInTheDocument();
    Object.defineProperty(window, 'scrollY', { configurable: true, value: 640 });
    scrollTo.mockClear();

    await act(() => router.navigate('/groups'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Groups' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 0);

    Object.defineProperty(window, 'scrollY', { configurable: true, value: 0 });
    await act(() => router.navigate(-1));
    expect(await screen.findByRole('heading', { level: 1, name: 'Instances' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 640);
  });
});
