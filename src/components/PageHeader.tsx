import { Heading, Stack, Text } from '@chakra-ui/react';
import { useLayoutEffect, useRef, type ReactNode, type RefObject } from 'react';

interface PageHeaderProps {
  title: string;
  description?: string;
  /** Buttons and the like, on the heading's right. */
  actions?: ReactNode;
}

/**
 * The CSS variable, on the document, holding where the screen's header ends on the page: toasts are
 * placed below it (ToastStack). Its actions wrap onto more rows as the window narrows, so no fixed
 * offset keeps them clear.
 */
export const headerBottomVar = '--page-header-bottom';

/** Keeps headerBottomVar at the header's bottom (on the page, not the viewport: scrolling only adds room). */
function usePublishedBottom(header: RefObject<HTMLElement | null>) {
  useLayoutEffect(() => {
    const element = header.current;
    if (!element) return;
    const root = document.documentElement.style;
    const publish = () => root.setProperty(headerBottomVar, `${Math.ceil(element.getBoundingClientRect().bottom + window.scrollY)}px`);
    publish();
    const observer = new ResizeObserver(publish);
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.removeProperty(headerBottomVar);
    };
  }, [header]);
}

/** A screen's heading; it also names the browser tab. */
export function PageHeader({ title, description, actions }: PageHeaderProps) {
  const header = useRef<HTMLDivElement>(null);
  usePublishedBottom(header);
  return (
    <Stack ref={header} as="header" direction={{ base: 'column', md: 'row' }} justify="space-between" gap="4" mb="6">
      {/* React 19 hoists <title> into the document head. */}
      <title>{`${title} · Warden`}</title>
      <Stack gap="1">
        <Heading as="h1" size="2xl">
          {title}
        </Heading>
        {description && <Text color="fg.muted">{description}</Text>}
      </Stack>
      {actions}
    </Stack>
  );
}
