import { Box, Skeleton } from '@chakra-ui/react';
import { toString as qrSvg } from 'qrcode';
import { useEffect, useState } from 'react';

const size = 176;

/** A QR code drawn here in the browser: the secret it carries never leaves the page. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const [drawn, setDrawn] = useState<{ value: string; svg: string } | null>(null);
  useEffect(() => {
    let current = true;
    qrSvg(value, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then(
      (svg) => current && setDrawn({ value, svg }),
      () => current && setDrawn(null),
    );
    return () => {
      current = false;
    };
  }, [value]);

  if (drawn?.value !== value) return <Skeleton boxSize={`${size}px`} />;
  // On white whatever the theme: scanners want dark modules on a light ground.
  return (
    <Box bg="white" p="2" rounded="l2" w="fit-content" borderWidth="1px">
      <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(drawn.svg)}`} alt={label} width={size} height={size} />
    </Box>
  );
}
