#!/bin/bash
# The clik tool's behaviour at its edges: exit statuses (0 ok, 1 failure,
# 2 usage), a message on stderr for every failure, and no output file left
# behind when a command fails; the README's first commands on the photograph
# the build makes. Usage: cli.sh CLIK_BINARY SAMPLE.png PHOTO.jpg MOVED.png TRUTH.flo
set -u
clik=$1
sample=$2
photo=$3 moved=$4 truth=$5
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# refused NAME OPTION VALUE [OPTION VALUE...]: for each pair, NAME's command
# line (the array cmd) with OPTION VALUE after it is a usage error (exit 2),
# described as "NAME OPTION VALUE".
refused() {
    local name=$1
    shift
    while [ $# -ge 2 ]; do
        expect 2 "$name $1 $2" -- $run "$clik" "${cmd[@]}" "$1" "$2"
        shift 2
    done
}

# check WHAT GOT WANT: one more check of a value taken from the last command's files.
check() {
    if [ "$2" = "$3" ]; then
        ok "$1"
    else
        fail "$1: got '$2', expected '$3'"
    fi
}

printf 'not an image' >"$tmp/text.png"
head -c 300 "$sample" >"$tmp/truncated.png"
: >"$tmp/empty.pgm"
mkdir "$tmp/dir.png"

expect 0 "equalize a PNG" -- $run "$clik" equalize "$sample" "$tmp/out.png"
expect 0 "equalize on the CPU path" -- $run "$clik" equalize "$sample" "$tmp/out.pgm" --device none
expect 0 "hist as CSV" -- $run "$clik" hist "$sample" --csv
expect 0 "equalize --luma" -- $run "$clik" equalize "$sample" "$tmp/out.png" --luma
expect 0 "clahe" -- $run "$clik" clahe "$sample" "$tmp/out.png" --clip 2 --grid 7x5
expect 2 "clahe --grid 0x8" -- $run "$clik" clahe "$sample" "$tmp/out.png" --grid 0x8
expect 2 "clahe --clip 0" -- $run "$clik" clahe "$sample" "$tmp/out.png" --clip 0
expect 1 "clahe, a grid larger than the image" -- $run "$clik" clahe "$sample" "$tmp/out.png" --grid 99999x8
expect 0 "lut --invert" -- $run "$clik" lut "$sample" "$tmp/out.jpg" --invert
expect 0 "devices" -- $run "$clik" devices
expect 0 "help" -- $run "$clik" --help
expect 0 "subcommand help" -- $run "$clik" equalize --help
expect 2 "no command" -- $run "$clik"
expect 2 "unknown command" -- $run "$clik" frobnicate
expect 2 "missing argument" -- $run "$clik" equalize "$sample"
expect 2 "unknown option" -- $run "$clik" hist "$sample" --bogus
expect 2 "option without value" -- $run "$clik" hist "$sample" --device
expect 2 "lut without a table" -- $run "$clik" lut "$sample" "$tmp/out.png"
expect 2 "lut with a bad gamma" -- $run "$clik" lut "$sample" "$tmp/out.png" --gamma -1
expect 1 "missing input" -- $run "$clik" equalize "$tmp/missing.png" "$tmp/out.png"
expect 1 "text named .png" -- $run "$clik" equalize "$tmp/text.png" "$tmp/out.png"
expect 1 "truncated PNG" -- $run "$clik" hist "$tmp/truncated.png"
expect 1 "empty PGM" -- $run "$clik" hist "$tmp/empty.pgm"
expect 1 "a directory" -- $run "$clik" hist "$tmp/dir.png"
expect 1 "unknown output extension" -- $run "$clik" equalize "$sample" "$tmp/out.xyz"
expect 1 "output folder missing" -- $run "$clik" equalize "$sample" "$tmp/nowhere/out.png"
expect 1 "malformed device" -- $run "$clik" equalize "$sample" "$tmp/out.png" --device 1:x
expect 1 "device that does not exist" -- $run "$clik" equalize "$sample" "$tmp/out.png" --device 99:99
expect 0 "pyramid of 3 levels" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels 3
expect 0 "pyramid on the CPU path, as .npy" -- $run "$clik" pyramid "$sample" "$tmp/out.%02d.npy" --levels 2 --device none
expect 0 "pyrup" -- $run "$clik" pyrup "$sample" "$tmp/out.png"
expect 0 "laplacian as .npy" -- $run "$clik" laplacian "$sample" "$tmp/out.%d.npy" --levels 2
expect 0 "laplacian for viewing" -- $run "$clik" laplacian "$sample" "$tmp/out.%d.png" --levels 1 --device none
expect 0 "integral with squares" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/out.sq.npy" --sqtype u64
expect 0 "integral as f64" -- $run "$clik" integral "$sample" "$tmp/out.npy" --type f64 --device none
expect 2 "pyramid without --levels" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png"
expect 2 "pyramid --levels 0" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels 0
expect 2 "pyramid --levels text" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels two
expect 2 "pyramid name without %d" -- $run "$clik" pyramid "$sample" "$tmp/out.png" --levels 2
expect 2 "pyramid name with two %d" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.%d.png" --levels 2
expect 2 "pyramid name with %s" -- $run "$clik" pyramid "$sample" "$tmp/out.%s%d.png" --levels 2
expect 1 "pyramid of more levels than the size allows" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.png" --levels 30
expect 1 "pyramid into a missing folder" -- $run "$clik" pyramid "$sample" "$tmp/nowhere/out.%d.png" --levels 2
expect 1 "pyramid to an unknown extension" -- $run "$clik" pyramid "$sample" "$tmp/out.%d.xyz" --levels 2
expect 1 "laplacian of more levels than the size allows" -- $run "$clik" laplacian "$sample" "$tmp/out.%d.npy" --levels 30
expect 1 "pyrup of a missing file" -- $run "$clik" pyrup "$tmp/missing.png" "$tmp/out.png"
expect 2 "integral --type u16" -- $run "$clik" integral "$sample" "$tmp/out.npy" --type u16
expect 2 "integral --sqtype u32" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/out.sq.npy" --sqtype u32
expect 2 "integral sums and squares to one file" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/out.npy"
expect 1 "integral as PNG (u32 has no PNG form)" -- $run "$clik" integral "$sample" "$tmp/out.png"
expect 1 "integral squares into a missing folder (sums removed)" -- $run "$clik" integral "$sample" "$tmp/out.npy" --squared "$tmp/nowhere/out.sq.npy"
# 4200 x 4100 pixels: 255 * W * H passes 2^32 - 1, so u32 sums are refused.
{ printf 'P5\n4200 4100\n255\n'; head -c $((4200 * 4100)) /dev/zero; } >"$tmp/big.pgm"
expect 1 "integral u32 of an image that can overflow" -- $run "$clik" integral "$tmp/big.pgm" "$tmp/out.npy" --device none
grep -q "u64" "$tmp/stderr" || fail "overflow message does not name u64"
expect 0 "integral u64 of the same image" -- $run "$clik" integral "$tmp/big.pgm" "$tmp/out.npy" --type u64 --device none
expect 0 "integral s32 of the same image (wraps as OpenCV's int32)" -- $run "$clik" integral "$tmp/big.pgm" "$tmp/out.npy" --type s32 --device none
check "integral s32 is int32" "$(head -c 80 "$tmp/out.npy" | grep -ac "'<i4'")" 1
rm -f "$tmp/big.pgm"
expect 2 "conformance of an unknown op" -- $run "$clik" conformance --op nothing --device none


# ---- resize, blur, ssim, upscale ----------------------------------------------------------
# size_of FILE: WxH of a PNG (its IHDR) or of a PGM/PPM (its second header line).
size_of() {
    case $1 in
    *.png) od -An -tu1 -j16 -N8 "$1" 2>/dev/null |
        awk '{ printf "%dx%d", ((($1 * 256 + $2) * 256 + $3) * 256 + $4), ((($5 * 256 + $6) * 256 + $7) * 256 + $8) }' ;;
    *) sed -n 2p "$1" 2>/dev/null | tr ' ' x ;;
    esac
}
# png_kind FILE: grey, grey+alpha, rgb or rgba, from the PNG's colour type.
png_kind() {
    case $(od -An -tu1 -j25 -N1 "$1" 2>/dev/null | tr -d ' ') in
    0) echo grey ;; 2) echo rgb ;; 4) echo grey+alpha ;; 6) echo rgba ;; *) echo other ;;
    esac
}
# npy DESCR SHAPE BYTES: a NumPy header (format 1.0) on stdout, then BYTES
# bytes of stdin.
npy() {
    local dict="{'descr': '$1', 'fortran_order': False, 'shape': ($2), }"
    local pad=$(((64 - (10 + ${#dict} + 1) % 64) % 64))
    local len=$((${#dict} + 1 + pad))
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
    printf '%s%*s\n' "$dict" "$pad" ''
    head -c "$3"
}
# npy_u8 H W C RAW OUT: a NumPy (H, W, C) u8 array of the first H*W*C bytes of RAW.
npy_u8() { npy '|u1' "$1, $2, $3" $(($1 * $2 * $3)) <"$4" >"$5"; }

# Inputs made here from the sample's pixels: grey, RGB, RGBA, grey + alpha, 1x1, 10x10.
"$clik" equalize "$sample" "$tmp/sample.pgm" --device none || failures=$((failures + 1))
tail -c +16 "$tmp/sample.pgm" >"$tmp/pixels.raw" # after "P5\n640 480\n255\n"
pgm() { { printf 'P5\n%d %d\n255\n' "$1" "$2"; tail -c +$((1 + $3)) "$tmp/pixels.raw" | head -c $(($1 * $2)); } >"$4"; }
ppm() { { printf 'P6\n%d %d\n255\n' "$1" "$2"; tail -c +$((1 + $3)) "$tmp/pixels.raw" | head -c $((3 * $1 * $2)); } >"$4"; }
pgm 1 1 1000 "$tmp/one.pgm"
pgm 10 10 1000 "$tmp/ten.pgm"
pgm 11 11 1000 "$tmp/eleven.pgm"
pgm 64 48 70000 "$tmp/grey.pgm"
ppm 64 48 90000 "$tmp/rgb.ppm"
npy_u8 48 64 4 "$tmp/pixels.raw" "$tmp/rgba.npy"
npy_u8 48 64 2 "$tmp/pixels.raw" "$tmp/greya.npy"
npy_u8 48 64 3 "$tmp/pixels.raw" "$tmp/rgb3.npy"

# 3-channel arrays and --order: image files out are RGB; --order bgr reads
# arrays as BGR (swapped into RGB) and writes .npy back as BGR.
expect 0 "a 3-channel array to PNG" -- $run "$clik" resize "$tmp/rgb3.npy" "$tmp/rgb3.png" --size 64x48 --method nearest --device none
check "a 3-channel array to PNG: size and kind" "$(size_of "$tmp/rgb3.png") $(png_kind "$tmp/rgb3.png")" "64x48 rgb"
expect 0 "a BGR array to PNG" -- $run "$clik" resize "$tmp/rgb3.npy" "$tmp/bgr3.png" --size 64x48 --method nearest --order bgr --device none
check "a BGR array and its RGB picture differ" "$(cmp -s "$tmp/rgb3.png" "$tmp/bgr3.png" || echo differ)" differ
expect 0 "upscale of a BGR array" -- $run "$clik" upscale "$tmp/rgb3.npy" "$tmp/up-bgr.png" --scale 2 --order bgr --device none
expect 0 "upscale of its RGB picture" -- $run "$clik" upscale "$tmp/bgr3.png" "$tmp/up-rgb.png" --scale 2 --device none
check "upscale: a BGR array gives its RGB picture's result" "$(cmp -s "$tmp/up-bgr.png" "$tmp/up-rgb.png" && echo same)" same
expect 0 "a BGR array through .npy" -- $run "$clik" resize "$tmp/rgb3.npy" "$tmp/back.npy" --size 64x48 --method nearest --order bgr --device none
check "a BGR array comes back as it went in" "$(cmp -s "$tmp/rgb3.npy" "$tmp/back.npy" && echo same)" same
expect 0 "ssim of a 3-channel array with itself" -- $run "$clik" ssim "$tmp/rgb3.npy" "$tmp/rgb3.npy" --device none
check "ssim of a 3-channel array with itself" "$(cat "$tmp/stdout")" "1.000000"
expect 2 "--order of another name" -- $run "$clik" resize "$tmp/rgb3.npy" "$tmp/out.png" --scale 2 --order rgba

expect 0 "resize --scale 0.5 (bicubic)" -- $run "$clik" resize "$sample" "$tmp/out.pgm" --scale 0.5
check "resize --scale 0.5 size" "$(size_of "$tmp/out.pgm")" 320x240
expect 0 "resize --size, nearest" -- $run "$clik" resize "$sample" "$tmp/out.pgm" --size 100x37 --method nearest
check "resize --size size" "$(size_of "$tmp/out.pgm")" 100x37
expect 0 "resize --scale 1.7 bilinear on the CPU path" -- $run "$clik" resize "$tmp/grey.pgm" "$tmp/out.pgm" --scale 1.7 --method bilinear --device none
check "resize --scale 1.7 size (sides rounded)" "$(size_of "$tmp/out.pgm")" 109x82
expect 0 "resize of a 1x1 image on the CPU path" -- $run "$clik" resize "$tmp/one.pgm" "$tmp/out.pgm" --scale 3 --device none
check "resize of a 1x1 image: size" "$(size_of "$tmp/out.pgm")" 3x3
expect 0 "resize RGBA keeps alpha" -- $run "$clik" resize "$tmp/rgba.npy" "$tmp/out.png" --size 33x17 --device none
check "resize RGBA: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "33x17 rgba"
expect 0 "resize RGB stays RGB" -- $run "$clik" resize "$tmp/rgb.ppm" "$tmp/out.png" --scale 2
check "resize RGB: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "128x96 rgb"
expect 0 "resize grey + alpha" -- $run "$clik" resize "$tmp/greya.npy" "$tmp/out.png" --scale 0.25 --method nearest --device none
check "resize grey + alpha: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "16x12 grey+alpha"
# --scale maps as OpenCV's fx = fy = S: an 11x10 ramp (10 x) by 0.3 takes the
# source at (x + 0.5) / 0.3 - 0.5 = 7/6, 4.5, 47/6 (bilinear 12 45 78), not at
# the sizes' ratio 11/3 (13 50 87).
{ printf 'P5\n11 10\n255\n'; for y in 0 1 2 3 4 5 6 7 8 9; do printf '\000\012\024\036\050\062\074\106\120\132\144'; done; } >"$tmp/ramp.pgm"
expect 0 "resize --scale 0.3 bilinear of a ramp" -- $run "$clik" resize "$tmp/ramp.pgm" "$tmp/out.pgm" --scale 0.3 --method bilinear --device none
check "resize --scale 0.3: the first row as OpenCV's fx = 0.3" "$(tail -c 9 "$tmp/out.pgm" | od -An -tu1 -N3 | tr -s ' ' | sed 's/^ //')" "12 45 78"
expect 2 "resize without --scale or --size" -- $run "$clik" resize "$sample" "$tmp/out.png"
expect 2 "resize with --scale and --size" -- $run "$clik" resize "$sample" "$tmp/out.png" --scale 2 --size 4x4
cmd=(resize "$sample" "$tmp/out.png")
refused resize --scale 0 --scale -2 --scale nan --scale inf --scale 2x --size 0x5
expect 2 "resize --size that overflows" -- $run "$clik" resize "$sample" "$tmp/out.png" --size 99999999999999999999x5
expect 2 "resize --size past 2^20" -- $run "$clik" resize "$sample" "$tmp/out.png" --size 1048577x1
expect 2 "resize --size without a height" -- $run "$clik" resize "$sample" "$tmp/out.png" --size 5
expect 2 "resize --method lanczos" -- $run "$clik" resize "$sample" "$tmp/out.png" --scale 2 --method lanczos
expect 0 "resize --antialias (MATLAB's bicubic)" -- $run "$clik" resize "$sample" "$tmp/out.pgm" --scale 0.3 --antialias
check "resize --antialias size" "$(size_of "$tmp/out.pgm")" 192x144
expect 0 "resize --antialias of RGBA on the CPU path" -- $run "$clik" resize "$tmp/rgba.npy" "$tmp/out.png" --size 7x5 --antialias --device none
check "resize --antialias RGBA: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "7x5 rgba"
expect 2 "resize --antialias with --method nearest" -- $run "$clik" resize "$sample" "$tmp/out.png" --scale 0.5 --method nearest --antialias
expect 1 "resize to a side past 2^20" -- $run "$clik" resize "$sample" "$tmp/out.png" --scale 1e6
expect 1 "resize of 1x1 to nothing" -- $run "$clik" resize "$tmp/one.pgm" "$tmp/out.png" --scale 0.1
expect 1 "resize of a missing file" -- $run "$clik" resize "$tmp/missing.png" "$tmp/out.png" --scale 2
expect 1 "resize to an unknown extension" -- $run "$clik" resize "$tmp/grey.pgm" "$tmp/out.xyz" --scale 2

expect 0 "blur --ksize 5" -- $run "$clik" blur "$tmp/grey.pgm" "$tmp/out.pgm" --ksize 5
check "blur keeps the size" "$(size_of "$tmp/out.pgm")" 64x48
expect 0 "blur --ksize 31 --sigma 4 of a 1x1 image" -- $run "$clik" blur "$tmp/one.pgm" "$tmp/out.pgm" --ksize 31 --sigma 4 --device none
check "blur of 1x1 keeps its pixel" "$(cmp -s "$tmp/one.pgm" "$tmp/out.pgm" && echo same)" same
expect 0 "blur of RGBA on the CPU path" -- $run "$clik" blur "$tmp/rgba.npy" "$tmp/out.png" --ksize 3 --device none
check "blur of RGBA: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "64x48 rgba"
expect 0 "blur --ksize 1 changes nothing" -- $run "$clik" blur "$tmp/grey.pgm" "$tmp/out.pgm" --ksize 1 --device none
check "blur --ksize 1 output" "$(cmp -s "$tmp/grey.pgm" "$tmp/out.pgm" && echo same)" same
expect 2 "blur without --ksize" -- $run "$clik" blur "$sample" "$tmp/out.png"
expect 2 "blur --ksize 4 (even)" -- $run "$clik" blur "$sample" "$tmp/out.png" --ksize 4
expect 2 "blur --ksize 33" -- $run "$clik" blur "$sample" "$tmp/out.png" --ksize 33
expect 2 "blur --ksize -3" -- $run "$clik" blur "$sample" "$tmp/out.png" --ksize -3
expect 2 "blur --sigma -1" -- $run "$clik" blur "$sample" "$tmp/out.png" --ksize 3 --sigma -1
expect 2 "blur --sigma nan" -- $run "$clik" blur "$sample" "$tmp/out.png" --ksize 3 --sigma nan

expect 0 "ssim of an image with itself" -- $run "$clik" ssim "$tmp/grey.pgm" "$tmp/grey.pgm"
check "ssim of an image with itself prints 1" "$(cat "$tmp/stdout")" 1.000000
"$clik" blur "$tmp/grey.pgm" "$tmp/blurred.png" --ksize 7 --device none || failures=$((failures + 1))
expect 0 "ssim with a map" -- $run "$clik" ssim "$tmp/grey.pgm" "$tmp/blurred.png" --map "$tmp/out.png"
check "ssim map size (valid region)" "$(size_of "$tmp/out.png")" 54x38
check "ssim of a blurred image: 0.dddddd" "$(grep -Ec '^0\.[0-9]{6}$' "$tmp/stdout")" 1
expect 0 "ssim map as .npy, on the CPU path" -- $run "$clik" ssim "$tmp/grey.pgm" "$tmp/blurred.png" --map "$tmp/out.npy" --device none
check "ssim .npy map size" "$(wc -c <"$tmp/out.npy" 2>/dev/null | tr -d ' ')" $((128 + 54 * 38 * 4))
expect 0 "ssim of colour images (luma)" -- $run "$clik" ssim "$tmp/rgb.ppm" "$tmp/rgba.npy"
expect 0 "clahe of an RGB PPM (luma)" -- $run "$clik" clahe "$tmp/rgb.ppm" "$tmp/out.ppm" --grid 4x4
expect 0 "equalize --luma of an RGBA .npy" -- $run "$clik" equalize "$tmp/rgba.npy" "$tmp/out.npy" --luma
expect 0 "ssim of 11x11 images" -- $run "$clik" ssim "$tmp/eleven.pgm" "$tmp/eleven.pgm" --map "$tmp/out.pgm" --device none
check "ssim of 11x11: a 1x1 map" "$(size_of "$tmp/out.pgm")" 1x1
expect 1 "ssim of different sizes" -- $run "$clik" ssim "$sample" "$tmp/grey.pgm" --map "$tmp/out.png"
expect 1 "ssim of images smaller than 11x11" -- $run "$clik" ssim "$tmp/ten.pgm" "$tmp/ten.pgm" --map "$tmp/out.png"
expect 1 "ssim of 1x1 images" -- $run "$clik" ssim "$tmp/one.pgm" "$tmp/one.pgm"
expect 1 "ssim of a missing file" -- $run "$clik" ssim "$sample" "$tmp/missing.png"
expect 1 "ssim map to an unknown extension" -- $run "$clik" ssim "$tmp/grey.pgm" "$tmp/grey.pgm" --map "$tmp/out.xyz"
expect 2 "ssim of one image" -- $run "$clik" ssim "$sample"

expect 0 "upscale (fusion) x2 with an artifact map" -- $run "$clik" upscale "$tmp/grey.pgm" "$tmp/out.png" --scale 2 --method fusion --artifact-map "$tmp/out.map.png"
check "upscale x2: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "128x96 grey"
check "upscale x2: artifact map" "$(size_of "$tmp/out.map.png") $(png_kind "$tmp/out.map.png")" "128x96 grey"
expect 0 "upscale of a 1x1 image x3 on the CPU path" -- $run "$clik" upscale "$tmp/one.pgm" "$tmp/out.pgm" --scale 3 --method fusion --device none
check "upscale of a 1x1 image: size" "$(size_of "$tmp/out.pgm")" 3x3
expect 0 "upscale RGBA x4, --tile 4 --blur 3 --threshold 0.1" -- $run "$clik" upscale "$tmp/rgba.npy" "$tmp/out.png" --scale 4 --method fusion --tile 4 --blur 3 --threshold 0.1
check "upscale RGBA: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "256x192 rgba"
expect 0 "upscale RGB x8 on the CPU path" -- $run "$clik" upscale "$tmp/rgb.ppm" "$tmp/out.ppm" --scale 8 --method fusion --device none
check "upscale RGB: size" "$(size_of "$tmp/out.ppm")" 512x384
# A 3-channel array keeps its colours: fusion (which runs on RGBA) of
# rgb3.npy is the RGB of the fusion of the same pixels with an opaque alpha
# (image files of 3 channels are read as RGBA; arrays are not).
head -c $((3 * 64 * 48)) "$tmp/pixels.raw" | perl -0777 -pe 's/(...)/$1\xff/gs' >"$tmp/rgbx.raw"
npy_u8 48 64 4 "$tmp/rgbx.raw" "$tmp/rgbx.npy"
expect 0 "upscale a 3-channel array x2 on the CPU path" -- $run "$clik" upscale "$tmp/rgb3.npy" "$tmp/up-rgb3.npy" --scale 2 --method fusion --device none
expect 0 "upscale of its opaque RGBA x2" -- $run "$clik" upscale "$tmp/rgbx.npy" "$tmp/up-rgbx.npy" --scale 2 --method fusion --device none
tail -c $((3 * 128 * 96)) "$tmp/up-rgb3.npy" >"$tmp/up-rgb3.raw"
tail -c $((4 * 128 * 96)) "$tmp/up-rgbx.npy" | perl -0777 -pe 's/(...)./$1/gs' >"$tmp/up-rgbx.raw"
check "upscale RGB: the colours of its RGBA's upscale" "$(cmp -s "$tmp/up-rgb3.raw" "$tmp/up-rgbx.raw" && echo same)" same
expect 0 "upscale grey + alpha x2" -- $run "$clik" upscale "$tmp/greya.npy" "$tmp/out.png" --scale 2 --device none
check "upscale grey + alpha: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "128x96 grey+alpha"
expect 0 "upscale --method bicubic --scale 1.5 on the CPU path" -- $run "$clik" upscale "$tmp/grey.pgm" "$tmp/out.pgm" --scale 1.5 --method bicubic --device none
check "upscale bicubic x1.5: size" "$(size_of "$tmp/out.pgm")" 96x72
expect 0 "upscale x2, the default method" -- $run "$clik" upscale "$tmp/grey.pgm" "$tmp/default.png" --scale 2
expect 0 "upscale x2, --method lapar" -- $run "$clik" upscale "$tmp/grey.pgm" "$tmp/lapar.png" --scale 2 --method lapar
check "the default method is lapar" "$(cmp -s "$tmp/default.png" "$tmp/lapar.png" && echo same)" same
expect 2 "upscale, the default method, --scale 5" -- $run "$clik" upscale "$tmp/grey.pgm" "$tmp/out.png" --scale 5
check "the default's scale message" "$(grep -c 'other scales: --method bicubic' "$tmp/stderr")" 1
check "upscale --help says what fusion is for" "$("$clik" upscale --help 2>&1 | grep -c 'graphics, text and pixel art')" 1
expect 2 "upscale without --scale" -- $run "$clik" upscale "$sample" "$tmp/out.png"
expect 2 "upscale fusion --scale 1.5" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 1.5 --method fusion
expect 2 "upscale fusion --scale 9" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 9 --method fusion
expect 2 "upscale fusion --scale 1" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 1 --method fusion
expect 2 "upscale --scale nan" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale nan --method nearest
cmd=(upscale "$sample" "$tmp/out.png" --scale 2 --method fusion)
refused upscale --method lanczos --tile 1 --tile 17 --blur 4
expect 2 "upscale --threshold text" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 2 --method fusion --threshold high
expect 2 "upscale --artifact-map with --method nearest" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 2 --method nearest --artifact-map "$tmp/out.map.png"
expect 2 "upscale --depth for one image" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 2 --depth 2
expect 2 "upscale of one image to a pattern" -- $run "$clik" upscale "$sample" "$tmp/out.%d.png" --scale 2
expect 2 "upscale of a pattern to one file" -- $run "$clik" upscale "$tmp/f%d.pgm" "$tmp/out.png" --scale 2
expect 2 "upscale artifact map on the output" -- $run "$clik" upscale "$sample" "$tmp/out.png" --scale 2 --method fusion --artifact-map "$tmp/out.png"
expect 1 "upscale of a missing file" -- $run "$clik" upscale "$tmp/missing.png" "$tmp/out.png" --scale 2
expect 1 "upscale artifact map into a missing folder" -- $run "$clik" upscale "$tmp/grey.pgm" "$tmp/out.png" --scale 2 --method fusion --artifact-map "$tmp/nowhere/map.png"

# Frame sequences: 4 grey and 4 RGB frames, 1..4; the stream must give each
# frame exactly what the one-image command gives.
for i in 1 2 3 4; do
    pgm 40 30 $((i * 20011)) "$tmp/f000$i.pgm"
    ppm 40 30 $((i * 30011)) "$tmp/c000$i.ppm"
done
for i in 1 2 3 4; do
    "$clik" upscale "$tmp/f000$i.pgm" "$tmp/one.$i.png" --scale 3 --method fusion --artifact-map "$tmp/onemap.$i.png" ||
        failures=$((failures + 1))
    "$clik" upscale "$tmp/c000$i.ppm" "$tmp/onec.$i.ppm" --scale 2 --device none || failures=$((failures + 1))
    "$clik" upscale "$tmp/f000$i.pgm" "$tmp/onen.$i.pgm" --scale 2.5 --method bicubic --device none ||
        failures=$((failures + 1))
    "$clik" upscale "$tmp/c000$i.ppm" "$tmp/onel.$i.ppm" --scale 2 --method lapar || failures=$((failures + 1))
done
frames_match() { # frames_match WHAT STREAMED_PATTERN ONE_IMAGE_PATTERN
    local i bad=""
    for i in 1 2 3 4; do
        cmp -s "$(printf "$2" $i)" "$(printf "$3" $i)" || bad="$bad $i"
    done
    check "$1" "${bad:-none}" none
}
expect 0 "upscale 4 grey frames in a stream, --depth 2" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 3 --method fusion --depth 2 --artifact-map "$tmp/out.map%d.png"
frames_match "streamed grey frames differing from one-image runs" "$tmp/out.%d.png" "$tmp/one.%d.png"
frames_match "streamed artifact maps differing from one-image runs" "$tmp/out.map%d.png" "$tmp/onemap.%d.png"
check "frame rate on stderr" "$(grep -c 'frames/s' "$tmp/stderr")" 1
expect 0 "upscale 4 RGB frames on the CPU path" -- $run "$clik" upscale "$tmp/c%04d.ppm" "$tmp/out.%d.ppm" --scale 2 --device none
frames_match "streamed RGB frames differing from one-image runs" "$tmp/out.%d.ppm" "$tmp/onec.%d.ppm"
expect 0 "upscale 4 frames, bicubic x2.5, on the CPU path" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.pgm" --scale 2.5 --method bicubic --device none
frames_match "bicubic frames differing from one-image runs" "$tmp/out.%d.pgm" "$tmp/onen.%d.pgm"
# On the default device (on a GPU each frame's copies run beside the kernels
# of the frame before it).
expect 0 "upscale 4 RGB frames by the LAPAR model" -- $run "$clik" upscale "$tmp/c%04d.ppm" "$tmp/out.%d.ppm" --scale 2 --method lapar
frames_match "LAPAR model frames differing from one-image runs" "$tmp/out.%d.ppm" "$tmp/onel.%d.ppm"
expect 0 "upscale frames from --start 3, --depth 1" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 3 --method fusion --start 3 --depth 1 --device none
check "frames from --start 3" "$(cd "$tmp" && echo out.*.png)" "out.3.png out.4.png"
expect 1 "upscale of frames that do not exist" -- $run "$clik" upscale "$tmp/none%04d.pgm" "$tmp/out.%d.png" --scale 2 --method fusion
expect 1 "upscale from a --start that does not exist" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 2 --method fusion --start 7
cp "$tmp/f0004.pgm" "$tmp/g0001.pgm"
cp "$tmp/f0003.pgm" "$tmp/g0002.pgm"
pgm 40 31 0 "$tmp/g0003.pgm"
expect 1 "upscale of frames of two sizes (nothing kept)" -- $run "$clik" upscale "$tmp/g%04d.pgm" "$tmp/out.%d.png" --scale 2 --method fusion --depth 1
check "size mismatch message" "$(grep -c 'one size' "$tmp/stderr")" 1
cp "$tmp/text.png" "$tmp/g0003.pgm"
expect 1 "upscale of a corrupt third frame (nothing kept)" -- $run "$clik" upscale "$tmp/g%04d.pgm" "$tmp/out.%d.png" --scale 2 --method fusion
mkdir "$tmp/blocked3.png"
expect 1 "upscale whose third output cannot be written" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/blocked%d.png" --scale 2 --method fusion --depth 1
check "outputs removed after a failed write" "$(cd "$tmp" && echo blocked*)" blocked3.png
expect 2 "upscale of a pattern onto itself" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/f%04d.pgm" --scale 2 --method fusion
expect 2 "upscale whose output names are input frames" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/f000%d.pgm" --scale 2 --method fusion
expect 2 "upscale whose map names are output names" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 2 --method fusion --artifact-map "$tmp/out.%1d.png"
expect 2 "upscale onto its input with a map (refused, input kept)" -- $run "$clik" upscale "$tmp/f0001.pgm" "$tmp/f0001.pgm" --scale 2 --artifact-map "$tmp/nowhere/map.png"
check "input kept after a failed map" "$(size_of "$tmp/f0001.pgm")" 40x30
expect 2 "upscale --depth 0" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 2 --depth 0
expect 2 "upscale --start -1" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 2 --start -1
expect 2 "upscale artifact map without %d for frames" -- $run "$clik" upscale "$tmp/f%04d.pgm" "$tmp/out.%d.png" --scale 2 --artifact-map "$tmp/out.map.png"

# ---- flowviz, flowcmp ---------------------------------------------------------------------
# le32 N: the 4 bytes of N, little-endian, as printf escapes.
le32() { printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
# flo W H N A B OUT: a W x H .flo whose first N vectors are A and the others B,
# each vector given as the printf escapes of its two float32s.
flo() {
    local i
    {
        printf "PIEH$(le32 "$1")$(le32 "$2")"
        for ((i = 0; i < $1 * $2; i++)); do
            if [ "$i" -lt "$3" ]; then printf "$4"; else printf "$5"; fi
        done
    } >"$6"
}
# The float32s used: 0, 0.5, 1, 3, 4 and -1; 1e10 and NaN mark unknown vectors.
f0='\0\0\0\0' f05='\0\0\0\077' f1='\0\0\200\077' f3='\0\0\100\100' f4='\0\0\200\100'
fm1='\0\0\200\277' f1e10='\371\002\025\120' fnan='\0\0\300\177'
flo 8 6 0 "" "$f0$f0" "$tmp/zero.flo"
flo 8 6 0 "" "$f1$f0" "$tmp/right.flo"
flo 8 6 0 "" "$f0$f1" "$tmp/down.flo"
flo 8 6 0 "" "$f3$f4" "$tmp/far.flo"
flo 8 6 24 "$f1e10$f0" "$f1$f0" "$tmp/halfknown.flo"
flo 8 6 8 "$f0$fnan" "$fm1$f05" "$tmp/nanrow.flo"
flo 8 6 0 "" "$f0$fnan" "$tmp/nan.flo"
flo 9 6 0 "" "$f0$f0" "$tmp/wider.flo"
head -c 100 "$tmp/right.flo" >"$tmp/cut.flo"
{ cat "$tmp/right.flo"; printf 'x'; } >"$tmp/long.flo"
{ printf "PIEH$(le32 16384)$(le32 16384)"; head -c 64 /dev/zero; } >"$tmp/lie.flo"
{ printf "PIEH$(le32 100000)$(le32 100000)"; head -c 64 /dev/zero; } >"$tmp/huge.flo"
{ printf "PIEH$(le32 4294967295)$(le32 6)"; head -c 64 /dev/zero; } >"$tmp/negative.flo"
{ printf 'HEIP'; tail -c +5 "$tmp/right.flo"; } >"$tmp/swapped.flo"
{ printf 'PIEG'; tail -c +5 "$tmp/right.flo"; } >"$tmp/tag.flo"
printf 'PIEH' >"$tmp/tagonly.flo"
cp "$tmp/text.png" "$tmp/text.flo"
# The vectors of right.flo as a NumPy (6, 8, 2) float32 array.
npy_dict="{'descr': '<f4', 'fortran_order': False, 'shape': (6, 8, 2), }"
npy_pad=$(((64 - (10 + ${#npy_dict} + 1) % 64) % 64))
{
    printf "\223NUMPY\001\000\\$(printf %03o $((${#npy_dict} + 1 + npy_pad)))\000"
    printf '%s%*s\n' "$npy_dict" "$npy_pad" ''
    tail -c +13 "$tmp/right.flo"
} >"$tmp/right.npy"
# ppm_pixel FILE N: the RGB bytes of pixel N of a P6 file with a 3-line header, as "R G B".
ppm_pixel() { sed '1,3d' "$1" | od -An -tu1 -j$((3 * $2)) -N3 | tr -s ' ' | sed 's/^ //'; }

expect 0 "flowcmp of a flow with itself" -- $run "$clik" flowcmp "$tmp/right.flo" "$tmp/right.flo"
check "flowcmp with itself prints zero errors" "$(cat "$tmp/stdout")" "EPE 0.000000 AAE 0.000000 (48 of 48 vectors)"
expect 0 "flowcmp of (1, 0) and (0, 0)" -- $run "$clik" flowcmp "$tmp/right.flo" "$tmp/zero.flo"
check "flowcmp (1, 0) and (0, 0): EPE 1, AAE 45 degrees" "$(cat "$tmp/stdout")" "EPE 1.000000 AAE 45.000000 (48 of 48 vectors)"
expect 0 "flowcmp of (3, 4) and (0, 0)" -- $run "$clik" flowcmp "$tmp/zero.flo" "$tmp/far.flo"
check "flowcmp (3, 4) and (0, 0): EPE 5, AAE atan(5)" "$(cat "$tmp/stdout")" "EPE 5.000000 AAE 78.690068 (48 of 48 vectors)"
expect 0 "flowcmp skips vectors of 1e10" -- $run "$clik" flowcmp "$tmp/halfknown.flo" "$tmp/zero.flo"
check "flowcmp counts the known vectors only" "$(cat "$tmp/stdout")" "EPE 1.000000 AAE 45.000000 (24 of 48 vectors)"
expect 0 "flowcmp skips NaN vectors (either side)" -- $run "$clik" flowcmp "$tmp/zero.flo" "$tmp/nanrow.flo"
check "flowcmp without the NaN row" "$(cat "$tmp/stdout")" "EPE 1.118034 AAE 48.189685 (40 of 48 vectors)"
expect 0 "flowcmp of a (H, W, 2) float32 .npy" -- $run "$clik" flowcmp "$tmp/right.npy" "$tmp/zero.flo" --device none
check "flowcmp of a .npy flow" "$(cat "$tmp/stdout")" "EPE 1.000000 AAE 45.000000 (48 of 48 vectors)"
expect 1 "flowcmp with no vector known in both" -- $run "$clik" flowcmp "$tmp/nan.flo" "$tmp/zero.flo"
expect 1 "flowcmp of two sizes" -- $run "$clik" flowcmp "$tmp/zero.flo" "$tmp/wider.flo"
expect 1 "flowcmp of a missing flow" -- $run "$clik" flowcmp "$tmp/zero.flo" "$tmp/missing.flo"
expect 1 "flowcmp of an image (not a flow)" -- $run "$clik" flowcmp "$tmp/zero.flo" "$tmp/grey.pgm"
expect 1 "flowcmp of a .npy that is not a flow" -- $run "$clik" flowcmp "$tmp/rgba.npy" "$tmp/zero.flo"
expect 2 "flowcmp of one flow" -- $run "$clik" flowcmp "$tmp/zero.flo"
expect 2 "flowcmp with an unknown option" -- $run "$clik" flowcmp "$tmp/zero.flo" "$tmp/zero.flo" --max 3

expect 0 "flowviz of (1, 0): red" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.ppm"
check "flowviz (1, 0): size and first pixel" "$(size_of "$tmp/out.ppm") $(ppm_pixel "$tmp/out.ppm" 0)" "8x6 255 0 0"
expect 0 "flowviz of (0, 1): yellow" -- $run "$clik" flowviz "$tmp/down.flo" "$tmp/out.ppm"
check "flowviz (0, 1): last pixel" "$(ppm_pixel "$tmp/out.ppm" 47)" "255 234 0"
expect 0 "flowviz of no motion: white" -- $run "$clik" flowviz "$tmp/zero.flo" "$tmp/out.ppm"
check "flowviz (0, 0)" "$(ppm_pixel "$tmp/out.ppm" 5)" "255 255 255"
expect 0 "flowviz --max 2: half saturated" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.ppm" --max 2
check "flowviz (1, 0) --max 2" "$(ppm_pixel "$tmp/out.ppm" 0)" "255 128 128"
expect 0 "flowviz --max 0.5: past the maximum, darkened" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.ppm" --max 0.5
check "flowviz (1, 0) --max 0.5" "$(ppm_pixel "$tmp/out.ppm" 0)" "191 0 0"
expect 0 "flowviz of unknown vectors: black" -- $run "$clik" flowviz "$tmp/halfknown.flo" "$tmp/out.ppm"
check "flowviz: unknown black, known red" "$(ppm_pixel "$tmp/out.ppm" 23), $(ppm_pixel "$tmp/out.ppm" 24)" "0 0 0, 255 0 0"
expect 0 "flowviz to PNG" -- $run "$clik" flowviz "$tmp/far.flo" "$tmp/out.png"
check "flowviz PNG: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "8x6 rgb"
expect 1 "flowviz of a missing flow" -- $run "$clik" flowviz "$tmp/missing.flo" "$tmp/out.png"
expect 1 "flowviz of text named .flo" -- $run "$clik" flowviz "$tmp/text.flo" "$tmp/out.png"
expect 1 "flowviz of a cut .flo" -- $run "$clik" flowviz "$tmp/cut.flo" "$tmp/out.png"
check "cut .flo message" "$(grep -c 'truncated' "$tmp/stderr")" 1
expect 1 "flowviz of a .flo with a byte too many" -- $run "$clik" flowviz "$tmp/long.flo" "$tmp/out.png"
expect 1 "flowviz of a .flo claiming 16384x16384" -- $run "$clik" flowviz "$tmp/lie.flo" "$tmp/out.png"
expect 1 "flowviz of a .flo claiming 100000x100000" -- $run "$clik" flowviz "$tmp/huge.flo" "$tmp/out.png"
expect 1 "flowviz of a .flo of negative width" -- $run "$clik" flowviz "$tmp/negative.flo" "$tmp/out.png"
expect 1 "flowviz of a big-endian .flo" -- $run "$clik" flowviz "$tmp/swapped.flo" "$tmp/out.png"
expect 1 "flowviz of a .flo with a wrong tag" -- $run "$clik" flowviz "$tmp/tag.flo" "$tmp/out.png"
expect 1 "flowviz of a .flo cut after its tag" -- $run "$clik" flowviz "$tmp/tagonly.flo" "$tmp/out.png"
expect 1 "flowviz of an image" -- $run "$clik" flowviz "$tmp/grey.pgm" "$tmp/out.png"
expect 1 "flowviz into a .flo" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.flo"
expect 1 "flowviz to an unknown extension" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.xyz"
expect 1 "flowviz into a missing folder" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/nowhere/out.png"
cmd=(flowviz "$tmp/right.flo" "$tmp/out.png")
refused flowviz --max 0 --max -1 --max nan --max fast --max 1e-50 --max 1e-46
# 1e-50 is above 0 as a double but 0 as the float the drawing takes.
expect 2 "flowviz --max 1e-50" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.png" --max 1e-50
check "flowviz --max 1e-50: the message" "$(grep -c -- '--max 1e-50: .*too small' "$tmp/stderr")" 1
expect 0 "flowviz --max 1e-30: every known motion past it" -- $run "$clik" flowviz "$tmp/right.flo" "$tmp/out.ppm" --max 1e-30
check "flowviz (1, 0) --max 1e-30" "$(ppm_pixel "$tmp/out.ppm" 0)" "191 0 0"
expect 2 "flowviz without an output" -- $run "$clik" flowviz "$tmp/right.flo"

# ---- flow ------------------------------------------------------------------------------------
# crop W H X Y: W bytes from each of H rows of the sample's pixels, from column X of row Y.
# A crop one byte right and one row down is the same picture moved by (-1, -1); with
# 3-byte (RGB) or 2-byte (grey + alpha) pixels, 3 or 2 bytes right.
crop() {
    local r
    for ((r = 0; r < $2; r++)); do tail -c +$((1 + ($4 + r) * 640 + $3)) "$tmp/pixels.raw" | head -c "$1"; done
}
{ printf 'P5\n64 48\n255\n'; crop 64 48 300 150; } >"$tmp/i0.pgm"
{ printf 'P5\n64 48\n255\n'; crop 64 48 301 151; } >"$tmp/i1.pgm"
{ printf 'P6\n64 48\n255\n'; crop 192 48 300 150; } >"$tmp/i0.ppm"
{ printf 'P6\n64 48\n255\n'; crop 192 48 303 151; } >"$tmp/i1.ppm"
crop 128 48 300 150 >"$tmp/ga0.raw"
crop 128 48 302 151 >"$tmp/ga1.raw"
npy_u8 48 64 2 "$tmp/ga0.raw" "$tmp/i0ga.npy"
npy_u8 48 64 2 "$tmp/ga1.raw" "$tmp/i1ga.npy"
flo 64 48 0 "" "$fm1$fm1" "$tmp/gt.flo"
flo 64 48 1024 "$f1e10$f1e10" "$fm1$fm1" "$tmp/gtunknown.flo"
flo 64 48 0 "" "$f0$f0" "$tmp/zero64.flo"
flo 64 48 0 "" "$fnan$f0" "$tmp/nan64.flo"
{ printf 'P5\n64 47\n255\n'; crop 64 47 301 151; } >"$tmp/short.pgm"
# epe_below LIMIT: "yes" when the last command printed an EPE below LIMIT.
epe_below() { awk -v limit="$1" '$1 == "EPE" { print ($2 < limit ? "yes" : "no: " $2) }' "$tmp/stdout"; }

expect 0 "flow of a grey pair moved by (-1, -1)" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/gt.flo" --viz "$tmp/out.png"
check "flow of a grey pair: EPE below 0.1" "$(epe_below 0.1)" yes
check "flow of a grey pair: every vector counted" "$(grep -c '(3072 of 3072 vectors)' "$tmp/stdout")" 1
check "flow: the .flo size" "$(wc -c <"$tmp/out.flo" | tr -d ' ')" $((12 + 64 * 48 * 8))
check "flow --viz: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "64x48 rgb"
cp "$tmp/out.flo" "$tmp/device.flo"
expect 0 "flowcmp of the written flow against the ground truth" -- $run "$clik" flowcmp "$tmp/device.flo" "$tmp/gt.flo"
check "flowcmp agrees with flow --gt" "$(cat "$tmp/stdout")" "$($run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/device2.flo" --gt "$tmp/gt.flo")"
expect 0 "flow of a grey pair on the CPU path" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/gt.flo" --device none
check "flow on the CPU path: EPE below 0.1" "$(epe_below 0.1)" yes
cp "$tmp/out.flo" "$tmp/cpu.flo"
expect 0 "flowcmp of the device's flow and the CPU path's" -- $run "$clik" flowcmp "$tmp/device.flo" "$tmp/cpu.flo"
check "device and CPU flows within 0.01 px (FLOW)" "$(epe_below 0.01)" yes
expect 0 "flow of an RGB pair (luma)" -- $run "$clik" flow "$tmp/i0.ppm" "$tmp/i1.ppm" "$tmp/out.flo" --gt "$tmp/gt.flo" --device none
check "flow of an RGB pair: EPE below 0.1" "$(epe_below 0.1)" yes
expect 0 "flow of a grey + alpha pair" -- $run "$clik" flow "$tmp/i0ga.npy" "$tmp/i1ga.npy" "$tmp/out.npy" --gt "$tmp/gt.flo" --device none
check "flow of a grey + alpha pair: EPE below 0.1" "$(epe_below 0.1)" yes
check "flow as .npy: its size" "$(wc -c <"$tmp/out.npy" | tr -d ' ')" $((128 + 64 * 48 * 8))
expect 0 "flow with a ground truth partly unknown" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/gtunknown.flo" --device none
check "flow: unknown vectors of the ground truth left out" "$(grep -c '(2048 of 3072 vectors)' "$tmp/stdout")" 1
expect 0 "flow of an image with itself: no motion" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i0.pgm" "$tmp/out.flo" --device none
cp "$tmp/out.flo" "$tmp/still.flo"
expect 0 "flowcmp of that flow and zero" -- $run "$clik" flowcmp "$tmp/still.flo" "$tmp/zero64.flo"
check "flow of an image with itself: EPE below 0.01" "$(epe_below 0.01)" yes
expect 0 "flow, Romera et al.'s configuration (1 scale, 1 warp, 10 iterations)" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --scales 1 --warps 1 --iterations 10 --gt "$tmp/gt.flo"
expect 0 "flow with every option" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --scales 3 --zoom 0.7 --warps 3 --iterations 50 --epsilon 0 --tau 0.125 --lambda 0.2 --theta 0.25 --sigma 0 --storage f32 --gt "$tmp/gt.flo"
check "flow with every option: EPE below 0.2" "$(epe_below 0.2)" yes
expect 0 "flow --storage f16" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --storage f16 --gt "$tmp/gt.flo"
check "flow --storage f16: EPE below 0.1" "$(epe_below 0.1)" yes
expect 1 "flow of 1x1 images (below 4 x 4) on the CPU path" -- $run "$clik" flow "$tmp/one.pgm" "$tmp/one.pgm" "$tmp/out.flo" --device none
check "flow of 1x1 images: the minimum named" "$(grep -c 'at least 4 x 4' "$tmp/stderr")" 1
check "flow --help names the minimum" "$($run "$clik" flow --help | grep -c 'at least 4 x 4 pixels')" 1
# Smoothing of more taps than the blur's 31 (the NEON path overflowed a
# stack array): --sigma 4 (41 taps), --zoom 0.1 (59 taps between levels).
if "$clik" devices 2>/dev/null | grep -q '^CPU paths: .*neon'; then
    CLIK_CPU_PATH=neon expect 0 "flow --sigma 4 on the NEON path" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --sigma 4 --device none
    CLIK_CPU_PATH=neon expect 0 "flow --zoom 0.1 on the NEON path" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --zoom 0.1 --scales 2 --device none
else
    echo "skip flow --sigma 4 and --zoom 0.1 on the NEON path (this build has no NEON path)"
fi
expect 0 "flow --help" -- $run "$clik" flow --help
expect 2 "flow of one image" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/out.flo"
expect 2 "flow with four names" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" "$tmp/out2.flo"
expect 2 "flow into a .png" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.png"
cmd=(flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo")
refused flow --scales -1 --scales 101 --zoom 1 --zoom 0 --warps 0 --iterations 0 \
    --iterations 2.5 --epsilon -0.1 --tau 0.3 --tau 0 --lambda 0 --theta nan --sigma 101 \
    --sigma -1 --storage f64
expect 2 "flow --start for one pair" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --start 1
expect 2 "flow of one pair into a pattern" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.%d.flo"
expect 2 "flow of one pair with a --viz pattern" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --viz "$tmp/out.%d.png"
expect 2 "flow of two names without a pattern" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/out.flo"
expect 2 "flow whose output is its first image" -- $run "$clik" flow "$tmp/i0ga.npy" "$tmp/i1ga.npy" "$tmp/./i0ga.npy"
expect 2 "flow whose output is its ground truth" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/gt.flo" --gt "$tmp/gt.flo"
check "ground truth kept" "$(wc -c <"$tmp/gt.flo" | tr -d ' ')" $((12 + 64 * 48 * 8))
expect 2 "flow whose picture is its second image" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.ppm" "$tmp/out.flo" --viz "$tmp/./i1.ppm"
expect 2 "flow whose picture is its flow" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.npy" --viz "$tmp/out.npy"
expect 1 "flow of a missing image" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/missing.pgm" "$tmp/out.flo"
expect 1 "flow of images of two sizes" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/short.pgm" "$tmp/out.flo"
check "two sizes message" "$(grep -c 'one size' "$tmp/stderr")" 1
expect 1 "flow of a corrupt image" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/text.png" "$tmp/out.flo"
expect 1 "flow of a .flo (not an image)" -- $run "$clik" flow "$tmp/gt.flo" "$tmp/i1.pgm" "$tmp/out.flo"
expect 1 "flow with a ground truth of another size" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/zero.flo"
expect 1 "flow with a cut ground truth" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/cut.flo"
expect 1 "flow with a missing ground truth" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/missing.flo"
expect 1 "flow with an image as ground truth" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/i0.pgm"
expect 1 "flow with a ground truth of no known vector" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/nan64.flo" --device none
expect 1 "flow with its picture into a missing folder (flow not kept)" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --viz "$tmp/nowhere/out.png" --device none
expect 1 "flow with a picture of unknown extension" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --viz "$tmp/out.xyz" --device none
expect 1 "flow on a device that does not exist" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --device 99:99
expect 1 "flow --warps 1001 (refused by the library)" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --warps 1001 --device none

# ---- warp -------------------------------------------------------------------------------
# I1 is I0 moved by (-1, -1) and gt.flo that motion: I1 warped along it is I0
# but for its first row and column (the border replicated), and so is its
# average with I0. agree_inside A B C: "same" when the 64x48 P5/P6 images A
# and B (C channels, 13-byte headers) agree past the first row and column.
agree_inside() {
    local r w=$((64 * $3)) bad=""
    for ((r = 1; r < 48; r++)); do
        cmp -s -n $((w - $3)) -i $((13 + r * w + $3)):$((13 + r * w + $3)) "$1" "$2" || bad=" row $r"
    done
    echo "${bad:-same}"
}
expect 0 "warp of I1 along the motion" -- $run "$clik" warp "$tmp/i1.pgm" "$tmp/gt.flo" "$tmp/warped.pgm"
check "warp of I1 along the motion is I0" "$(agree_inside "$tmp/warped.pgm" "$tmp/i0.pgm" 1)" same
expect 0 "warp of colour on the CPU path" -- $run "$clik" warp "$tmp/i1.ppm" "$tmp/gt.flo" "$tmp/warped.ppm" --device none
check "warp of colour along the motion is I0" "$(agree_inside "$tmp/warped.ppm" "$tmp/i0.ppm" 3)" same
expect 0 "warp --average with I0" -- $run "$clik" warp "$tmp/i1.ppm" "$tmp/gt.flo" "$tmp/mean.ppm" --average "$tmp/i0.ppm"
check "warp --average of two aligned frames is the frame" "$(agree_inside "$tmp/mean.ppm" "$tmp/i0.ppm" 3)" same
expect 0 "warp of grey + alpha" -- $run "$clik" warp "$tmp/i1ga.npy" "$tmp/gt.flo" "$tmp/warped.npy"
expect 0 "warp by no motion" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/zero64.flo" "$tmp/same.pgm"
check "warp by no motion copies" "$(cmp -s "$tmp/same.pgm" "$tmp/i0.pgm" && echo same)" same
expect 0 "warp --help" -- $run "$clik" warp --help
expect 2 "warp without a flow" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/out.pgm"
expect 2 "warp into its image" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/gt.flo" "$tmp/./i0.pgm"
expect 2 "warp into its flow" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/out.npy" "$tmp/out.npy"
expect 2 "warp --average into its reference" -- $run "$clik" warp "$tmp/i1.pgm" "$tmp/gt.flo" "$tmp/i0.pgm" --average "$tmp/i0.pgm"
expect 1 "warp by a flow of another size" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/zero.flo" "$tmp/out.pgm"
check "warp by a flow of another size: message" "$(grep -c "the flow needs the image's size" "$tmp/stderr")" 1
expect 1 "warp by an image as the flow" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.pgm"
expect 1 "warp by a cut flow" -- $run "$clik" warp "$tmp/i0.pgm" "$tmp/cut.flo" "$tmp/out.pgm"
expect 1 "warp of a missing image" -- $run "$clik" warp "$tmp/missing.pgm" "$tmp/gt.flo" "$tmp/out.pgm"
expect 1 "warp --average with a reference of other channels" -- $run "$clik" warp "$tmp/i1.pgm" "$tmp/gt.flo" "$tmp/out.pgm" --average "$tmp/i0.ppm"
expect 1 "warp --average with a reference of another size" -- $run "$clik" warp "$tmp/i1.pgm" "$tmp/gt.flo" "$tmp/out.pgm" --average "$tmp/short.pgm"
expect 1 "warp into a missing folder" -- $run "$clik" warp "$tmp/i1.pgm" "$tmp/gt.flo" "$tmp/nowhere/out.pgm"

# Frame sequences: frames 1..4 of the crop, each moved by (-1, -1) from the one before.
for i in 1 2 3 4; do
    { printf 'P5\n64 48\n255\n'; crop 64 48 $((300 + i)) $((150 + i)); } >"$tmp/s$i.pgm"
done
for i in 1 2 3; do
    cp "$tmp/gt.flo" "$tmp/sgt$i.flo"
    "$clik" flow "$tmp/s$i.pgm" "$tmp/s$((i + 1)).pgm" "$tmp/sone$i.flo" --viz "$tmp/sone$i.png" ||
        failures=$((failures + 1))
done
expect 0 "flow along 4 frames, with pictures and ground truth" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --viz "$tmp/out.v%d.png" --gt "$tmp/sgt%d.flo"
check "flow along frames: the files" "$(cd "$tmp" && echo out.*)" "out.1.flo out.2.flo out.3.flo out.v1.png out.v2.png out.v3.png"
bad=""
for i in 1 2 3; do
    cmp -s "$tmp/out.$i.flo" "$tmp/sone$i.flo" || bad="$bad flow$i"
    cmp -s "$tmp/out.v$i.png" "$tmp/sone$i.png" || bad="$bad picture$i"
done
check "flows along frames differing from one-pair runs" "${bad:-none}" none
check "flow along frames: a line per flow and their mean" "$(grep -c 'EPE' "$tmp/stdout") $(grep -c '^mean: EPE' "$tmp/stdout")" "4 1"
check "flow along frames: the mean EPE below 0.1" "$(awk '$1 == "mean:" { print ($3 < 0.1 ? "yes" : "no: " $3) }' "$tmp/stdout")" yes
check "flow along frames: time on stderr" "$(grep -c '3 flows of 64x48' "$tmp/stderr")" 1
expect 0 "flow along frames from --start 2, on the CPU path" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --start 2 --device none
check "flows from --start 2" "$(cd "$tmp" && echo out.*)" "out.2.flo out.3.flo"
expect 1 "flow along one frame" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --start 4
expect 1 "flow along frames that do not exist" -- $run "$clik" flow "$tmp/none%d.pgm" "$tmp/out.%d.flo"
rm "$tmp/sgt3.flo"
expect 1 "flow along frames with a ground truth missing (nothing kept)" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --gt "$tmp/sgt%d.flo"
cp "$tmp/s1.pgm" "$tmp/t1.pgm"
cp "$tmp/s2.pgm" "$tmp/t2.pgm"
cp "$tmp/short.pgm" "$tmp/t3.pgm"
expect 1 "flow along frames of two sizes (nothing kept)" -- $run "$clik" flow "$tmp/t%d.pgm" "$tmp/out.%d.flo" --device none
check "frames of two sizes: message" "$(grep -c 'one size' "$tmp/stderr")" 1
cp "$tmp/text.png" "$tmp/t3.pgm"
expect 1 "flow along frames, the third corrupt (nothing kept)" -- $run "$clik" flow "$tmp/t%d.pgm" "$tmp/out.%d.flo" --device none
expect 2 "flow along frames into one file" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.flo"
expect 2 "flow along frames with one picture" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --viz "$tmp/out.png"
expect 2 "flow along frames with one ground truth" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --gt "$tmp/gt.flo"
expect 2 "flow along frames into .png" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.png"
expect 2 "flow along frames whose flows are its ground truth" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/sgt%d.flo" --gt "$tmp/sgt%d.flo"
expect 2 "flow along frames whose pictures are its frames" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --viz "$tmp/s%d.pgm"
expect 2 "flow along frames whose pictures are its flows" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.npy" --viz "$tmp/out.%1d.npy"
expect 2 "flow --start -1" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/out.%d.flo" --start -1
# Nine frames: the frames read ahead and the flows written behind go round
# their rings (6 places, and 3 on two processors); the flows match one-pair runs, frames in colour
# give the flows of their luma, and a corrupt frame late in the run keeps none.
for i in 1 2 3 4 5 6 7 8 9; do
    { printf 'P5\n64 48\n255\n'; crop 64 48 $((300 + i)) $((150 + i)); } >"$tmp/l$i.pgm"
    { printf 'P6\n64 48\n255\n'; crop 192 48 $((200 + 3 * i)) $((150 + i)); } >"$tmp/c$i.ppm"
done
"$clik" flow "$tmp/l7.pgm" "$tmp/l8.pgm" "$tmp/lone7.flo" || failures=$((failures + 1))
"$clik" flow "$tmp/c8.ppm" "$tmp/c9.ppm" "$tmp/cone8.flo" || failures=$((failures + 1))
expect 0 "flow along 9 frames" -- $run "$clik" flow "$tmp/l%d.pgm" "$tmp/lout%d.flo" --viz "$tmp/lviz%d.png"
check "flow along 9 frames: 8 flows, 8 pictures" "$(cd "$tmp" && ls lout*.flo lviz*.png | wc -l)" 16
bad=""
for i in 1 2 3; do
    cmp -s "$tmp/lout$i.flo" "$tmp/sone$i.flo" || bad="$bad flow$i"
    cmp -s "$tmp/lviz$i.png" "$tmp/sone$i.png" || bad="$bad picture$i"
done
cmp -s "$tmp/lout7.flo" "$tmp/lone7.flo" || bad="$bad flow7"
check "flows along 9 frames differing from one-pair runs" "${bad:-none}" none
check "flow along 9 frames: the rate on stderr" "$(grep -c '8 flows of 64x48 in .* pairs per second' "$tmp/stderr")" 1
expect 0 "flow along 9 colour frames" -- $run "$clik" flow "$tmp/c%d.ppm" "$tmp/cout%d.flo"
check "flow along colour frames differing from a one-pair run" "$(cmp -s "$tmp/cout8.flo" "$tmp/cone8.flo" && echo same)" same
cp "$tmp/text.png" "$tmp/l8.pgm"
expect 1 "flow along 9 frames, the eighth corrupt (nothing kept)" -- $run "$clik" flow "$tmp/l%d.pgm" "$tmp/kept%d.flo"
check "no flow kept after a corrupt eighth frame" "$(cd "$tmp" && ls kept* 2>/dev/null | wc -l)" 0
check "corrupt eighth frame: one message naming it" "$(grep -c 'l8.pgm' "$tmp/stderr")" 1
mkdir "$tmp/fblocked2.flo"
expect 1 "flow along frames whose second output cannot be written" -- $run "$clik" flow "$tmp/s%d.pgm" "$tmp/fblocked%d.flo" --device none
check "no flow kept after a failed write" "$(cd "$tmp" && echo fblocked*)" fblocked2.flo

# ---- the README's photograph and its known motion ---------------------------------------
# The build copies the photograph and makes its second frame (apps/photo_motion.c)
# with the exact flow of that motion. TV-L1 with the defaults finds it within
# 0.045 px (mean end-point error; PoCL and NEON); 0.1 px is the bound. A
# truth a quarter pixel off gives 0.26 px, an inverted motion 8.1 px.
check "the photograph, its moved frame and the truth exist" \
    "$([ -s "$photo" ] && [ -s "$moved" ] && [ -s "$truth" ] && echo yes)" yes
check "the moved frame: size and kind" "$(size_of "$moved") $(png_kind "$moved")" "512x512 rgb"
check "the truth: a 512 x 512 .flo" "$(head -c 4 "$truth") $(od -An -tu4 -j4 -N8 "$truth" | xargs) $(wc -c <"$truth")" \
    "PIEH 512 512 $((12 + 512 * 512 * 8))"
expect 0 "upscale the photograph (default method)" -- $run "$clik" upscale "$photo" "$tmp/out.png" --scale 2
check "upscale of the photograph: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "1024x1024 rgb"
expect 0 "flow from the photograph to its moved frame" -- $run "$clik" flow "$photo" "$moved" "$tmp/out.flo" --viz "$tmp/out.png" --gt "$truth"
check "flow against the truth: EPE below 0.1 px, vectors moved out of the frame unknown" \
    "$(awk '$1 == "EPE" { sub(/\(/, "", $5); print ($2 < 0.1), ($5 > 0.95 * $8 && $5 < $8) }' "$tmp/stdout")" "1 1"

# ---- lapar, lapar-compress, tune ------------------------------------------------------------
# npy_f32 H W VALUE OUT: an (H, W) float32 array, every element VALUE (printf
# escapes of its 4 little-endian bytes).
npy_f32() {
    local v=$3
    { while :; do printf "$v$v$v$v$v$v$v$v"; done; } 2>/dev/null | npy '<f4' "$1, $2" $((4 * $1 * $2)) >"$4"
}
one='\000\000\200\077' zero='\000\000\000\000'
pgm 16 12 70000 "$tmp/lr.pgm"
ppm 16 12 90000 "$tmp/lr.ppm"
npy_f32 $((72 * 24)) 32 "$one" "$tmp/phi.npy"    # x2 of 16 x 12: 72 planes of 32 x 24
npy_f32 $((72 * 24)) 32 "$zero" "$tmp/phi0.npy"
npy_f32 $((7 * 24)) 32 "$one" "$tmp/phi7.npy"    # 7 planes: the kept ones of alpha 0.1
npy_f32 24 32 "$one" "$tmp/phi1.npy"             # 1 plane
{ head -c 48 /dev/zero; printf "$one"; head -c 48 /dev/zero; } | npy '<f4' '1, 25' 100 >"$tmp/delta.npy"
head -c 96 /dev/zero | npy '<f4' '1, 24' 96 >"$tmp/dict24.npy"
cp "$tmp/phi.npy" "$tmp/phi.keep"
# The same coefficients as a network gives them, (L, S*H, S*W).
{ while :; do printf "$one$one$one$one$one$one$one$one"; done; } 2>/dev/null | npy '<f4' '72, 24, 32' $((4 * 72 * 24 * 32)) >"$tmp/phi3d.npy"
{ while :; do printf "$one$one$one$one$one$one$one$one"; done; } 2>/dev/null | npy '<f4' '72, 24, 31' $((4 * 72 * 24 * 31)) >"$tmp/phi3d31.npy"
expect 0 "lapar x2 of grey, every coefficient 1" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 2
check "lapar output size" "$(size_of "$tmp/out.png")" 32x24
expect 0 "lapar of colour on the CPU path" -- $run "$clik" lapar "$tmp/lr.ppm" "$tmp/phi.npy" "$tmp/out.png" --scale 2 --device none
check "lapar of colour gives colour" "$(png_kind "$tmp/out.png")" rgb
expect 0 "lapar with f16 storage" -- $run "$clik" lapar "$tmp/lr.ppm" "$tmp/phi.npy" "$tmp/out.ppm" --scale 2 --storage f16
expect 0 "lapar with phi 0, as .npy" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi0.npy" "$tmp/out.npy" --scale 2
check "lapar with phi 0 gives 0" "$(wc -c <"$tmp/out.npy" | tr -d ' ') $(tail -c 768 "$tmp/out.npy" | tr -d '\000' | wc -c | tr -d ' ')" "896 0"
expect 0 "lapar with a one-atom dictionary (a delta)" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi1.npy" "$tmp/out.pgm" --scale 2 --dict "$tmp/delta.npy"
"$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out2d.png" --scale 2 || failures=$((failures + 1))
expect 0 "lapar with phi as (L, S*H, S*W)" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi3d.npy" "$tmp/out.png" --scale 2
check "lapar: (L, S*H, S*W) as (L*S*H, S*W)" "$(cmp -s "$tmp/out.png" "$tmp/out2d.png" && echo same)" same
expect 1 "lapar with phi (72, 24, 31)" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi3d31.npy" "$tmp/out.png" --scale 2
check "the (L, S*H, S*W) shape in the message" "$(grep -c '(72, 24, 32)' "$tmp/stderr")" 1
expect 2 "lapar without --scale" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png"
expect 2 "lapar --scale 5" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 5
expect 2 "lapar --scale 1" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 1
expect 2 "lapar --storage f8" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 2 --storage f8
expect 2 "lapar --mix without --atoms" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 2 --mix
expect 1 "lapar with phi for another scale" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 3
expect 1 "lapar with phi of another plane count" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi7.npy" "$tmp/out.png" --scale 2
expect 1 "lapar with a (1, 24) dictionary" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi1.npy" "$tmp/out.png" --scale 2 --dict "$tmp/dict24.npy"
expect 1 "lapar with phi of 8-bit RGBA" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/rgba.npy" "$tmp/out.png" --scale 2
expect 1 "lapar with phi missing" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/missing.npy" "$tmp/out.png" --scale 2
expect 2 "lapar writing over its phi" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/phi.npy" --scale 2
check "lapar left its phi as it was" "$(cmp -s "$tmp/phi.npy" "$tmp/phi.keep" && echo same)" same
# Calibration: the truth is the bicubic x2 of the input, phi every atom at 1.
$run "$clik" resize "$tmp/lr.pgm" "$tmp/hr.pgm" --scale 2 --device none || failures=$((failures + 1))
expect 0 "lapar-compress, alpha 0.1" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/out.npy" --alpha 0.1 --scale 2
check "lapar-compress: 7 rows of 2 + 72 floats" "$(wc -c <"$tmp/out.npy" | tr -d ' ')" $((128 + 7 * 74 * 4))
grep -q "kept 7 of 72 atoms" "$tmp/stdout"
check "lapar-compress names the kept atoms" $? 0
cp "$tmp/out.npy" "$tmp/sel.npy"
expect 0 "lapar with the kept atoms, every plane" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 2 --atoms "$tmp/sel.npy"
expect 0 "lapar with the kept atoms, their planes only" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi7.npy" "$tmp/out.png" --scale 2 --atoms "$tmp/sel.npy" --device none
expect 0 "lapar with the re-fit matrix" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 2 --atoms "$tmp/sel.npy" --mix
expect 1 "lapar with the re-fit matrix and the kept planes only" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi7.npy" "$tmp/out.png" --scale 2 --atoms "$tmp/sel.npy" --mix
expect 1 "lapar with a selection of another dictionary" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi1.npy" "$tmp/out.png" --scale 2 --atoms "$tmp/sel.npy" --dict "$tmp/delta.npy"
expect 0 "lapar-compress with phi as (L, S*H, S*W)" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi3d.npy" "$tmp/hr.pgm" "$tmp/out.npy" --alpha 0.1 --scale 2
check "lapar-compress: (L, S*H, S*W) as (L*S*H, S*W)" "$(cmp -s "$tmp/out.npy" "$tmp/sel.npy" && echo same)" same
expect 2 "lapar-compress --alpha 0" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/out.npy" --alpha 0 --scale 2
expect 2 "lapar-compress --alpha 1.5" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/out.npy" --alpha 1.5 --scale 2
expect 2 "lapar-compress without --alpha" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/out.npy" --scale 2
expect 2 "lapar-compress of a pair, not a triple" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.npy" --alpha 0.5 --scale 2
expect 2 "lapar-compress writing over its truth" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/hr.pgm" --alpha 0.5 --scale 2
expect 1 "lapar-compress with a truth of the wrong size" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/lr.pgm" "$tmp/out.npy" --alpha 0.5 --scale 2
expect 1 "lapar-compress with colour input and grey truth" -- $run "$clik" lapar-compress "$tmp/lr.ppm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/out.npy" --alpha 0.5 --scale 2
# With a network: fitted to its own output (the default) or to HR; the saved
# network runs with upscale.
if $run "$clik" upscale "$tmp/lr.ppm" "$tmp/out.png" --scale 2 --method lapar-c >/dev/null 2>&1; then
    expect 0 "lapar-compress --net lapar-c, alpha 0.1" -- $run "$clik" lapar-compress --net lapar-c --scale 2 --alpha 0.1 "$tmp/hr.pgm" "$tmp/lr.ppm" "$tmp/csel.npy" --save-net "$tmp/c7.clikn"
    check "lapar-compress --net: 7 kept, also fitted to the network's output" "$(grep -c -e '^kept 7 of 72 atoms' -e "^PSNR against the network's output" "$tmp/stdout")" 2
    expect 0 "upscale with the compressed network" -- $run "$clik" upscale "$tmp/lr.ppm" "$tmp/out.png" --scale 2 --method lapar-net --model "$tmp/c7.clikn"
    check "upscale with the compressed network: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "32x24 rgb"
    expect 0 "lapar-compress --net --target hr" -- $run "$clik" lapar-compress --net lapar-c --scale 2 --alpha 0.1 --target hr "$tmp/hr.pgm" "$tmp/lr.ppm" "$tmp/csel.npy"
    check "lapar-compress --target hr: fitted to HR only" "$(grep -c "network's output" "$tmp/stdout")" 0
    expect 2 "lapar-compress --target x" -- $run "$clik" lapar-compress --net lapar-c --scale 2 --alpha 0.1 --target x "$tmp/hr.pgm" "$tmp/out.npy"
else
    echo "skip lapar-compress --net (this build holds no LAPAR-C network)"
fi
expect 2 "lapar-compress --target without a network" -- $run "$clik" lapar-compress "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/hr.pgm" "$tmp/out.npy" --alpha 0.5 --scale 2 --target hr
expect 2 "tune of a family without a search" -- $run "$clik" tune hist "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2
expect 2 "tune lapar without its files" -- $run "$clik" tune lapar "$tmp/lr.pgm"
expect 1 "tune lapar on the CPU" -- $run "$clik" tune lapar "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2 --device none
if $run "$clik" devices 2>/dev/null | grep -q '^  [0-9]*:[0-9]* '; then
    # A store of its own, so that the first run finds nothing stored.
    store=$tmp/tune-cache
    CLIK_CACHE_DIR=$store expect 0 "tune lapar searches and stores" -- $run "$clik" tune lapar "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2
    grep -q "^before: .*the device's default" "$tmp/stdout" && grep -q "^searched: .* ms" "$tmp/stdout"
    check "tune lapar: the default before, a timed shape after" $? 0
    CLIK_CACHE_DIR=$store expect 0 "tune lapar --show" -- $run "$clik" tune lapar "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2 --show
    grep -q "^before: .*, stored" "$tmp/stdout"
    check "the searched shape is read back from the store" $? 0
    CLIK_CACHE_DIR=$store expect 0 "lapar after tune" -- $run "$clik" lapar "$tmp/lr.pgm" "$tmp/phi.npy" "$tmp/out.png" --scale 2
    # A search whose result cannot be stored fails, saying why.
    CLIK_CACHE=off expect 1 "tune lapar with the cache off" -- $run "$clik" tune lapar "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2
    check "tune lapar with the cache off: the message" "$(grep -c 'not stored.*CLIK_CACHE=off' "$tmp/stderr")" 1
    mkdir "$tmp/tune-file"
    printf 'a file' >"$tmp/tune-file/tune"
    CLIK_CACHE_DIR=$tmp/tune-file expect 1 "tune lapar with a file at the tuning folder's name" -- $run "$clik" tune lapar "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2
    check "tune lapar, no tuning folder: the message" "$(grep -c 'not stored.*cannot write the store' "$tmp/stderr")" 1
    if [ "$(id -u)" != 0 ]; then # root writes in read-only folders
        mkdir -p "$tmp/tune-ro/tune"
        chmod 555 "$tmp/tune-ro/tune"
        CLIK_CACHE_DIR=$tmp/tune-ro expect 1 "tune lapar with a read-only tuning folder" -- $run "$clik" tune lapar "$tmp/lr.pgm" "$tmp/phi.npy" --scale 2
        chmod 755 "$tmp/tune-ro/tune"
    else
        echo "skip tune lapar with a read-only tuning folder (root writes there)"
    fi
else
    echo "skip tune lapar on a device (no OpenCL device)"
fi

# tune lapar-net: the arguments, --show without a store, and (--full: the
# search compiles every candidate's kernels, minutes on 2 cores) the search
# stored and read back.
expect 2 "tune lapar-net without --size" -- $run "$clik" tune lapar-net --net lapar-c --scale 2
expect 2 "tune lapar-net --size 1x9" -- $run "$clik" tune lapar-net --net lapar-c --scale 2 --size 1x9
expect 2 "tune lapar-net --activations f64" -- $run "$clik" tune lapar-net --net lapar-c --scale 2 --size 16x12 --activations f64
expect 2 "tune lapar-net --net with --model" -- $run "$clik" tune lapar-net --net lapar-c --model x.clikn --scale 2 --size 16x12
expect 2 "lapar-net --activations f64" -- $run "$clik" lapar-net "$tmp/lr.ppm" "$tmp/netphi.npy" --scale 2 --activations f64
if $run "$clik" upscale "$tmp/lr.ppm" "$tmp/out.png" --scale 2 --method lapar-c >/dev/null 2>&1; then
    expect 1 "tune lapar-net on the CPU" -- $run "$clik" tune lapar-net --net lapar-c --scale 2 --size 16x12 --device none
    expect 0 "lapar-net --activations f16" -- $run "$clik" lapar-net "$tmp/lr.ppm" "$tmp/netphi.npy" --net lapar-c --scale 2 --activations f16 --out "$tmp/out.png"
    check "lapar-net --activations f16: size and kind" "$(size_of "$tmp/out.png") $(png_kind "$tmp/out.png")" "32x24 rgb"
    if $run "$clik" devices 2>/dev/null | grep -q '^  [0-9]*:[0-9]* '; then
        store=$tmp/tune-net
        CLIK_CACHE_DIR=$store expect 0 "tune lapar-net --show, nothing stored" -- $run "$clik" tune lapar-net --net lapar-c --scale 2 --size 16x12 --show
        grep -q "^before: .*the device's default" "$tmp/stdout"
        check "tune lapar-net --show: the default" $? 0
        if [ -n "${CLIK_TEST_FULL:-}" ]; then
            CLIK_CACHE_DIR=$store expect 0 "tune lapar-net searches and stores" -- $run "$clik" tune lapar-net --net lapar-c --scale 2 --size 16x12
            grep -q "^searched: .* ms), stored" "$tmp/stdout"
            check "tune lapar-net: a timed shape, stored" $? 0
            CLIK_CACHE_DIR=$store expect 0 "tune lapar-net --show after the search" -- $run "$clik" tune lapar-net --net lapar-c --scale 2 --size 17x11 --show
            grep -q "^before: .*, stored" "$tmp/stdout"
            check "tune lapar-net: the same size class reads the store" $? 0
        else
            echo "skip tune lapar-net's search (tests/run.sh --full)"
        fi
    fi
else
    echo "skip tune lapar-net and --activations (this build holds no LAPAR-C network)"
fi

# ---- lapar-train -----------------------------------------------------------------------------
mkdir "$tmp/train"
cp "$tmp/grey.pgm" "$tmp/train/a.pgm"
cp "$tmp/rgb.ppm" "$tmp/train/b.ppm"
expect 0 "lapar-train from a folder" -- $run "$clik" lapar-train "$tmp/train" "$tmp/out.model" --scale 2 --device none
check "lapar-train: two images" "$(grep -c 'from 2 images' "$tmp/stderr")" 1
cp "$tmp/out.model" "$tmp/train.model"
# A pipe named like an image is skipped with a note, not opened (which
# would wait for a writer for ever); so is a folder.
if command -v mkfifo >/dev/null && command -v timeout >/dev/null; then
    mkfifo "$tmp/train/c.png"
    mkdir "$tmp/train/d.jpg"
    expect 0 "lapar-train from a folder holding a pipe and a folder named as images" -- \
        timeout 60 $run "$clik" lapar-train "$tmp/train" "$tmp/out.model" --scale 2 --device none
    check "lapar-train: the pipe and the folder skipped with a note" \
        "$(grep -c 'c.png: not a regular file; skipped' "$tmp/stderr") $(grep -c 'd.jpg: not a regular file; skipped' "$tmp/stderr")" "1 1"
    check "lapar-train: the same model without them" "$(cmp -s "$tmp/out.model" "$tmp/train.model" && echo same)" same
else
    echo "skip lapar-train beside a pipe (no mkfifo or timeout)"
fi
mkdir "$tmp/train-none"
expect 1 "lapar-train from a folder of no image" -- $run "$clik" lapar-train "$tmp/train-none" "$tmp/out.model" --scale 2 --device none

# ---- files a command must not lose ---------------------------------------------------------
# same_files A B: "same" when the two files hold the same bytes.
same_files() { cmp -s "$1" "$2" && echo same; }
# An output is compared with the inputs and the other outputs as a file on
# disk, not as a name: ./x, d/../x and links are caught too.
mkdir "$tmp/keep" "$tmp/keep/sub"
npy_u8 48 64 1 "$tmp/pixels.raw" "$tmp/keep/in8.npy"
cp "$tmp/keep/in8.npy" "$tmp/keep/in8.orig"
expect 2 "integral whose sums would replace the input (squares into a missing folder)" -- $run "$clik" integral "$tmp/keep/in8.npy" "$tmp/keep/in8.npy" --squared "$tmp/keep/nowhere/sq.npy"
check "integral input kept" "$(same_files "$tmp/keep/in8.npy" "$tmp/keep/in8.orig")" same
expect 2 "integral sums and squares to one file by two names" -- $run "$clik" integral "$tmp/keep/in8.npy" "$tmp/keep/sums.npy" --squared "$tmp/keep/sub/../sums.npy"
check "integral wrote nothing" "$(cd "$tmp/keep" && echo *.npy)" in8.npy
ln "$tmp/keep/in8.npy" "$tmp/keep/hard.npy"
ln -s in8.npy "$tmp/keep/soft.npy"
expect 2 "integral into a hard link of its input" -- $run "$clik" integral "$tmp/keep/in8.npy" "$tmp/keep/hard.npy"
expect 2 "integral of a symbolic link into its target" -- $run "$clik" integral "$tmp/keep/soft.npy" "$tmp/keep/in8.npy"
check "integral input kept (links)" "$(same_files "$tmp/keep/in8.npy" "$tmp/keep/in8.orig")" same
cp "$sample" "$tmp/keep/p.1.png"
mkdir "$tmp/keep/p.2.png"
expect 2 "pyramid whose level 1 is the input" -- $run "$clik" pyramid "$tmp/keep/p.1.png" "$tmp/keep/p.%d.png" --levels 2
check "pyramid input kept" "$(same_files "$tmp/keep/p.1.png" "$sample")" same
cp "$sample" "$tmp/keep/l.0.png"
expect 2 "laplacian whose band 0 is the input" -- $run "$clik" laplacian "$tmp/keep/l.0.png" "$tmp/keep/sub/../l.%d.png" --levels 1
check "laplacian input kept" "$(same_files "$tmp/keep/l.0.png" "$sample")" same
cp "$tmp/grey.pgm" "$tmp/keep/g.pgm"
expect 2 "upscale whose map is the input" -- $run "$clik" upscale "$tmp/keep/g.pgm" "$tmp/keep/big.png" --scale 2 --artifact-map "$tmp/keep/./g.pgm"
check "upscale input kept (map)" "$(same_files "$tmp/keep/g.pgm" "$tmp/grey.pgm")" same
expect 2 "ssim map onto one of its images" -- $run "$clik" ssim "$tmp/keep/g.pgm" "$tmp/grey.pgm" --map "$tmp/keep/sub/../g.pgm"
check "ssim image kept" "$(same_files "$tmp/keep/g.pgm" "$tmp/grey.pgm")" same
# One output written through a temporary file may replace its input.
expect 0 "blur in place" -- $run "$clik" blur "$tmp/keep/g.pgm" "$tmp/keep/./g.pgm" --ksize 3 --device none
check "blur in place: a blurred image" "$(size_of "$tmp/keep/g.pgm") $(same_files "$tmp/keep/g.pgm" "$tmp/grey.pgm")" "64x48 "
expect 0 "upscale in place" -- $run "$clik" upscale "$tmp/keep/g.pgm" "$tmp/keep/g.pgm" --scale 2 --device none
check "upscale in place: size" "$(size_of "$tmp/keep/g.pgm")" 128x96

# Frames 1..8, the last corrupt, written onto themselves under another spelling.
mkdir "$tmp/seq" "$tmp/seq/sub" "$tmp/seq.orig"
for i in 1 2 3 4 5 6 7; do pgm 40 30 $((i * 20011)) "$tmp/seq/f$i.pgm"; done
cp "$tmp/text.png" "$tmp/seq/f8.pgm"
cp "$tmp"/seq/*.pgm "$tmp/seq.orig"
expect 2 "upscale of frames onto themselves as ./f%d" -- $run "$clik" upscale "$tmp/seq/f%d.pgm" "$tmp/seq/./f%d.pgm" --scale 2 --method fusion --depth 1
kept=""
for i in 1 2 3 4 5 6 7 8; do [ "$(same_files "$tmp/seq/f$i.pgm" "$tmp/seq.orig/f$i.pgm")" = same ] && kept="$kept $i"; done
check "input frames kept" "$kept" " 1 2 3 4 5 6 7 8"
expect 2 "upscale whose map frames are the output frames by another name" -- $run "$clik" upscale "$tmp/seq/f%d.pgm" "$tmp/seq/o%d.png" --scale 2 --artifact-map "$tmp/seq/sub/../o%d.png"

# Every output or none, and never a file that was there before: o1 exists,
# o3 turns into a folder while frame 3 (a pipe) is being read, so the third
# rename fails after two have been made. o2, new, goes again; o1 stays.
if command -v mkfifo >/dev/null && command -v timeout >/dev/null; then
    # LABEL FIFO BLOCK FEED COMMAND...: runs the sequence command in the
    # background; when it opens its input FIFO for reading (the open for
    # writing waits for it), BLOCK (an output's name) becomes a folder, so
    # that output's rename fails, and FEED is written into the FIFO. Should
    # the command never get there, it is stopped rather than waited for.
    # Checks the exit status 1; stdout and stderr in $tmp.
    rename_fails() {
        local label=$1 fifo=$2 block=$3 feed=$4
        shift 4
        $run "$@" >"$tmp/stdout" 2>"$tmp/stderr" &
        local pid=$!
        timeout 120 bash -c 'exec 3>"$1" && mkdir "$2" && cat "$3" >&3' _ "$fifo" "$block" \
            "$feed" || kill "$pid" 2>/dev/null
        wait $pid
        check "$label: exit status" "$?" 1
    }
    mkdir "$tmp/roll"
    for i in 1 2 4; do pgm 40 30 $((i * 20011)) "$tmp/roll/f$i.pgm"; done
    mkfifo "$tmp/roll/f3.pgm"
    printf 'before' >"$tmp/roll/o1.pgm"
    rename_fails "upscale whose third rename fails" "$tmp/roll/f3.pgm" "$tmp/roll/o3.pgm" \
        "$tmp/roll/f4.pgm" "$clik" upscale "$tmp/roll/f%d.pgm" "$tmp/roll/o%d.pgm" --scale 2 \
        --method nearest --device none
    check "upscale whose third rename fails: at the rename" "$(grep -c 'o3.pgm: cannot replace' "$tmp/stderr")" 1
    check "upscale whose third rename fails: what is left" "$(cd "$tmp/roll" && echo o* .o*)" "o1.pgm o3.pgm .o*"
    check "upscale whose third rename fails: o1 kept as it was" "$(printf before | cmp -s - "$tmp/roll/o1.pgm" && echo kept)" kept

    # The same along flows, o0000 replaced before o0002 fails: the user's
    # o0000.flo comes back, and nothing else is left.
    mkdir "$tmp/froll"
    for i in 0 1 3; do cp "$tmp/s$((i + 1)).pgm" "$tmp/froll/f000$i.pgm"; done
    mkfifo "$tmp/froll/f0002.pgm"
    printf 'old flow' >"$tmp/froll/o0000.flo"
    chmod 640 "$tmp/froll/o0000.flo"
    rename_fails "flow whose third rename fails" "$tmp/froll/f0002.pgm" "$tmp/froll/o0002.flo" \
        "$tmp/s3.pgm" "$clik" flow "$tmp/froll/f%04d.pgm" "$tmp/froll/o%04d.flo" --device none \
        --iterations 5
    check "flow whose third rename fails: at the rename" "$(grep -c 'o0002.flo: cannot replace' "$tmp/stderr")" 1
    check "flow whose third rename fails: what is left" "$(cd "$tmp/froll" && echo o* .o*)" "o0000.flo o0002.flo .o*"
    check "flow whose third rename fails: o0000 kept as it was" \
        "$(printf 'old flow' | cmp -s - "$tmp/froll/o0000.flo" && stat -c %a "$tmp/froll/o0000.flo")" 640
else
    echo "skip upscale and flow whose third rename fails (no mkfifo or timeout)"
fi

# A sticky folder where the user may replace o1 but not o2 (another user's
# file): refused before anything is written, o1 as it was. As root, through
# an unprivileged user; the test needs root to make the files of two users.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$clik" 2>/dev/null; then
    mkdir -p "$tmp/sticky"
    chmod 755 "$tmp"
    chmod 1777 "$tmp/sticky"
    for i in 1 2 3; do cp "$tmp/s$i.pgm" "$tmp/sticky/f$i.pgm"; done
    printf 'theirs' >"$tmp/sticky/o1.flo"
    printf 'root' >"$tmp/sticky/o2.flo"
    chown 65534:65534 "$tmp/sticky/o1.flo"
    chmod 666 "$tmp/sticky/o2.flo"
    CLIK_CACHE=off expect 1 "flow into a sticky folder, o2 another user's" -- \
        setpriv --reuid=65534 --regid=65534 --clear-groups $run "$clik" flow "$tmp/sticky/f%d.pgm" \
        "$tmp/sticky/o%d.flo" --device none --iterations 5
    check "sticky folder: the message names the file and why" "$(grep -c 'o2.flo.*sticky' "$tmp/stderr")" 1
    check "sticky folder: both outputs as they were, nothing else" \
        "$(printf theirs | cmp -s - "$tmp/sticky/o1.flo" && printf root | cmp -s - "$tmp/sticky/o2.flo" &&
            cd "$tmp/sticky" && echo kept .o*)" "kept .o*"
    chmod 700 "$tmp"
else
    echo "skip flow into a sticky folder (needs root and setpriv to act as another user)"
fi

# A replaced file keeps its permission bits; a new one gets the umask's.
cp "$sample" "$tmp/keep/p.png"
chmod 600 "$tmp/keep/p.png"
expect 0 "equalize over a file of mode 600" -- $run "$clik" equalize "$sample" "$tmp/keep/p.png" --device none
check "the replaced file keeps mode 600" "$(stat -c %a "$tmp/keep/p.png")" 600
cp "$tmp/keep/in8.npy" "$tmp/keep/s.npy"
cp "$tmp/keep/in8.npy" "$tmp/keep/q.npy"
chmod 640 "$tmp/keep/s.npy"
chmod 604 "$tmp/keep/q.npy"
expect 0 "integral over two files of modes 640 and 604" -- $run "$clik" integral "$tmp/keep/in8.npy" "$tmp/keep/s.npy" --squared "$tmp/keep/q.npy" --device none
check "the replaced outputs keep their modes" "$(stat -c %a "$tmp/keep/s.npy" "$tmp/keep/q.npy" | tr '\n' ' ')" "640 604 "
(umask 027 && $run "$clik" equalize "$sample" "$tmp/keep/new.png" --device none)
check "a new file takes the umask" "$(stat -c %a "$tmp/keep/new.png")" 640

# Temporary names next to an output of 255 bytes, the longest a name may be.
long=$(printf 'n%.0s' {1..251})
expect 0 "equalize into a name of 255 bytes" -- $run "$clik" equalize "$sample" "$tmp/keep/$long.pgm" --device none
check "the 255-byte file" "$(size_of "$tmp/keep/$long.pgm")" 640x480
expect 0 "pyramid into names of 254 bytes" -- $run "$clik" pyramid "$sample" "$tmp/keep/${long:2}%d.png" --levels 2 --device none
check "the 254-byte files" "$(size_of "$tmp/keep/${long:2}1.png") $(size_of "$tmp/keep/${long:2}2.png")" "320x240 160x120"
check "no temporary left" "$(cd "$tmp/keep" && echo .n*)" ".n*"

# ---- helpers of the sections below ---------------------------------------------------------
# same_stdout WHAT -- COMMAND...: the command's stdout is that of the last expect.
same_stdout() {
    local what=$1
    shift 2
    cp "$tmp/stdout" "$tmp/stdout.before"
    "$@" >"$tmp/stdout" 2>/dev/null
    check "$what" "$(cmp -s "$tmp/stdout" "$tmp/stdout.before" && echo same)" same
}
# in_stderr WHAT TEXT...: each TEXT (a fixed string) is in the last command's stderr.
in_stderr() {
    local what=$1 text missing=""
    shift
    for text in "$@"; do grep -qF -- "$text" "$tmp/stderr" || missing="$missing '$text'"; done
    check "$what" "${missing:-none}" none
}

# ---- inputs by content, and from standard input -------------------------------------------
from_stdin() { # from_stdin FILE COMMAND...: runs COMMAND with FILE as its standard input
    local f=$1
    shift
    "$@" <"$f"
}
"$clik" equalize "$sample" "$tmp/want.png" --device none || failures=$((failures + 1))
expect 0 "- reads standard input" -- from_stdin "$sample" $run "$clik" equalize - "$tmp/out.png" --device none
check "- gives the file's result" "$(same_files "$tmp/out.png" "$tmp/want.png")" same
"$clik" lut "$sample" "$tmp/as-jpeg.jpg" --gamma 1 --device none || failures=$((failures + 1))
cp "$tmp/as-jpeg.jpg" "$tmp/jpeg-named.png"
"$clik" equalize "$tmp/as-jpeg.jpg" "$tmp/want.png" --device none || failures=$((failures + 1))
expect 0 "a JPEG named .png reads by its content" -- $run "$clik" equalize "$tmp/jpeg-named.png" "$tmp/out.png" --device none
check "the JPEG named .png gives the JPEG's result" "$(same_files "$tmp/out.png" "$tmp/want.png")" same
expect 0 "a JPEG on standard input" -- from_stdin "$tmp/as-jpeg.jpg" $run "$clik" equalize - "$tmp/out.png" --device none
check "the JPEG on standard input gives the JPEG's result" "$(same_files "$tmp/out.png" "$tmp/want.png")" same
expect 1 "empty standard input" -- from_stdin /dev/null $run "$clik" equalize - "$tmp/out.png" --device none
in_stderr "empty standard input message" "standard input is empty"
# Zeros start no format: refused from the first bytes, not read to the end
# (where standard input is a file, the offset it is left at tells).
truncate -s 64M "$tmp/zeros.bin"
(
    exec 4<"$tmp/zeros.bin"
    $run "$clik" equalize - "$tmp/out.png" --device none <&4 >"$tmp/stdout" 2>"$tmp/stderr"
    echo "$? $(awk '$1 == "pos:" { print ($2 < 1048576 ? "early" : "at " $2) }' /proc/$BASHPID/fdinfo/4)"
) >"$tmp/zeros.result"
check "zeros on standard input: refused, read no further than 1 MiB" "$(cat "$tmp/zeros.result")" "1 early"
in_stderr "zeros on standard input: the message" "neither its first bytes nor its extension"
rm -f "$tmp/zeros.bin"
printf 'not an image' >"$tmp/text.png"
expect 1 "text on standard input" -- from_stdin "$tmp/text.png" $run "$clik" equalize - "$tmp/out.png" --device none
in_stderr "no format message" "neither its first bytes nor its extension"

expect 0 "- writes standard output (PNG)" -- $run "$clik" equalize "$sample" - --device none
"$clik" equalize "$sample" "$tmp/want.png" --device none || failures=$((failures + 1))
check "- gives the file's bytes" "$(same_files "$tmp/stdout" "$tmp/want.png")" same
expect 0 "pgm:- writes PGM to standard output" -- $run "$clik" equalize "$sample" pgm:- --device none
check "pgm:- is a PGM" "$(head -c 2 "$tmp/stdout")" P5
expect 0 "- in and out" -- from_stdin "$sample" $run "$clik" equalize - - --device none
check "- in and out gives the file's bytes" "$(same_files "$tmp/stdout" "$tmp/want.png")" same
expect 1 "a failed command writes nothing to standard output" -- $run "$clik" equalize "$tmp/missing.png" - --device none
check "nothing on standard output" "$(wc -c <"$tmp/stdout")" 0
expect 2 "two outputs to standard output" -- $run "$clik" integral "$sample" npy:- --squared npy:- --device none
expect 1 "an unknown format for standard output" -- $run "$clik" equalize "$sample" xyz:- --device none

# ---- 16-bit samples ----------------------------------------------------------------------
# resize, blur and pyrup take 16-bit PNG and PGM/PPM (through f32) and write 16-bit back.
{ printf 'P5\n2 2\n65535\n'; printf '\001\002\003\004\377\000\022\064'; } >"$tmp/in16.pgm"
expect 0 "resize a 16-bit PGM" -- $run "$clik" resize "$tmp/in16.pgm" "$tmp/out.pgm" --scale 2 --method nearest --device none
check "16-bit PGM out" "$(head -c 13 "$tmp/out.pgm" | tr '\n' ' ')" "P5 4 4 65535 "
check "16-bit samples kept (nearest)" "$(tail -c 32 "$tmp/out.pgm" | od -An -tx1 | tr -d ' \n')" \
    "01020102030403040102010203040304ff00ff0012341234ff00ff0012341234"
expect 0 "blur a 16-bit PGM into .npy (f32)" -- $run "$clik" blur "$tmp/in16.pgm" "$tmp/out.npy" --ksize 3 --device none
check "f32 .npy out" "$(head -c 64 "$tmp/out.npy" | grep -c "'<f4'")" 1
expect 1 "equalize refuses 16-bit" -- $run "$clik" equalize "$tmp/in16.pgm" "$tmp/out.png" --device none
check "equalize's 16-bit message" "$(grep -c 'needs 8-bit pixels' "$tmp/stderr")" 1

# ---- options of every command, help, devices, -v ----------------------------------------
expect 0 "--opt=value options" -- $run "$clik" resize "$sample" "$tmp/out.pgm" --scale=0.5 --method=nearest --device=none
check "--scale=0.5 size" "$(size_of "$tmp/out.pgm")" 320x240
expect 2 "--opt= with a bad value" -- $run "$clik" resize "$sample" "$tmp/out.pgm" --scale=0
expect 2 "--opt= for an unknown option" -- $run "$clik" resize "$sample" "$tmp/out.pgm" --scal=2
expect 2 "a flag given a value" -- $run "$clik" hist "$sample" --csv=yes
expect 0 "conformance --op=hist_compute --list" -- $run "$clik" conformance --list --op=hist_compute --device=none
check "conformance --op=hist_compute selects one operation" "$(grep -c '^operations (1):' "$tmp/stdout")" 1
expect 0 "global options before the command" -- $run "$clik" --device none --png-level 0 equalize "$sample" "$tmp/out.png"
check "--png-level 0 stores the pixels" "$(($(wc -c <"$tmp/out.png") > 640 * 481))" 1
expect 0 "global options before the command, = form" -- $run "$clik" --png-level=9 --device=none equalize "$sample" "$tmp/out.png"
check "--png-level 9 compresses" "$(($(wc -c <"$tmp/out.png") < 640 * 480))" 1
"$clik" equalize "$sample" "$tmp/default.png" --device none || failures=$((failures + 1))
expect 0 "--png-level 1 after the command" -- $run "$clik" equalize "$sample" "$tmp/out.png" --device none --png-level 1
check "the default PNG level is 1" "$(same_files "$tmp/out.png" "$tmp/default.png")" same
cmd=(equalize "$sample" "$tmp/out.png" --device none)
refused equalize --png-level 10 --png-level -1 --png-level 1.5 --png-level fast --png-level ''
expect 2 "--png-level=10" -- $run "$clik" equalize "$sample" "$tmp/out.png" --png-level=10
expect 2 "--png-level 10 before the command" -- $run "$clik" --png-level 10 equalize "$sample" "$tmp/out.png"
in_stderr "bad --png-level message" "--png-level 10" "0..9"
expect 2 "--png-level without a value" -- $run "$clik" equalize "$sample" "$tmp/out.png" --png-level
expect 2 "--device without a value before the command" -- $run "$clik" --device
expect 2 "unknown option before the command" -- $run "$clik" --bogus equalize "$sample" "$tmp/out.png"
expect 2 "global options and no command" -- $run "$clik" -v --device none
expect 0 "help COMMAND" -- $run "$clik" help equalize
check "help COMMAND names the function it calls" "$(head -n 1 "$tmp/stdout")" \
    "clik equalize calls clik_hist_equalize, clik_hist_equalize_luma"
sed -i '1,2d' "$tmp/stdout"
same_stdout "help COMMAND is the function, then COMMAND --help" -- $run "$clik" equalize --help
expect 0 "help COMMAND after a global option" -- $run "$clik" --device none help conformance
same_stdout "help conformance is conformance --help" -- $run "$clik" conformance --help
expect 0 "help alone" -- $run "$clik" help
same_stdout "help is --help" -- $run "$clik" --help
expect 2 "help of an unknown command" -- $run "$clik" help frobnicate
in_stderr "help of an unknown command names it" "frobnicate"
expect 2 "help of two commands" -- $run "$clik" help equalize hist
# A selection that matches nothing lists what `clik devices` lists.
$run "$clik" devices 2>/dev/null | grep -E '^  [0-9]+:[0-9]+  ' >"$tmp/devices.txt"
mapfile -t devices <"$tmp/devices.txt"
for spec in 99:99 no-such-device-name; do
    expect 1 "device $spec lists the devices" -- $run "$clik" equalize "$sample" "$tmp/out.png" --device "$spec"
    in_stderr "device $spec: the devices and clik devices" "clik devices" ${devices[@]+"${devices[@]}"}
done
expect 1 "conformance on a device that does not exist lists the devices" -- $run "$clik" conformance --device 99:99
in_stderr "conformance device list" "clik devices" ${devices[@]+"${devices[@]}"}
CLIK_CPU_PATH=scalar expect 0 "-v before the command" -- $run "$clik" -v equalize "$sample" "$tmp/out.pgm" --device none
in_stderr "-v names the backend, the device and the time" "scalar backend on the CPU" "programs 0 compiled" " ms"
CLIK_CPU_PATH=scalar expect 0 "--verbose after the command" -- $run "$clik" blur "$sample" "$tmp/out.pgm" --ksize 3 --device=none --verbose
in_stderr "--verbose names the backend" "clik blur: $sample: scalar backend"
expect 0 "no -v: nothing on stderr" -- $run "$clik" equalize "$sample" "$tmp/out.pgm" --device none
check "no -v: stderr empty" "$(wc -c <"$tmp/stderr" | tr -d ' ')" 0
expect 2 "--verbose=1" -- $run "$clik" equalize "$sample" "$tmp/out.pgm" --verbose=1
if [ -s "$tmp/devices.txt" ]; then
    dev=$(awk 'NR == 1 { print $1 }' "$tmp/devices.txt")
    # A cache of its own, so that the kernels are compiled here.
    CLIK_CACHE_DIR=$tmp/verbose-cache expect 0 "-v on an OpenCL device" -- $run "$clik" -v equalize "$sample" "$tmp/out.pgm" --device $dev
    in_stderr "-v: the OpenCL backend, programs compiled" "opencl backend on $dev" "compiled"
    check "-v: programs compiled with an empty cache" "$(grep -c 'programs 0 compiled' "$tmp/stderr")" 0
    if command -v script >/dev/null; then
        # script gives the command a terminal; its output comes back on stdout.
        on_tty=$(printf '%q ' $run "$clik" blur "$sample" "$tmp/out.pgm" --ksize 5 --device "$dev")
        CLIK_CACHE_DIR=$tmp/tty-cache script -qec "$on_tty" /dev/null >"$tmp/stderr" 2>&1
        in_stderr "on a terminal: a note when kernels are compiled" "clik: compiled"
        CLIK_CACHE_DIR=$tmp/tty-cache script -qec "$on_tty" /dev/null >"$tmp/stderr" 2>&1
        check "on a terminal, kernels from the cache: no note" "$(grep -c 'clik: compiled' "$tmp/stderr")" 0
    else
        echo "skip the note on a terminal (no script)"
    fi
else
    echo "skip -v on an OpenCL device (no OpenCL device)"
fi

# ---- results that cannot be written to stdout ---------------------------------------------
# expect_full STATUS DESCRIPTION -- COMMAND...: the exit status with stdout on
# /dev/full, and a message on stderr that says so.
expect_full() {
    local want=$1 what=$2
    shift 3
    "$@" >/dev/full 2>"$tmp/stderr"
    local got=$?
    if [ "$got" -eq "$want" ] && grep -q 'standard output' "$tmp/stderr"; then
        ok "$what"
    else
        fail "$what: exit $got, expected $want with a message about stdout"
    fi
}
# warmup: compiles into the kernel cache, then finds everything there.
expect 0 "warmup --list" -- $run "$clik" warmup --list
expect 2 "warmup --channels 5" -- $run "$clik" warmup --channels 5
expect 2 "warmup --type u16" -- $run "$clik" warmup --type u16
expect 1 "warmup of an unknown operation" -- $run "$clik" warmup --op hist_equalize,bogus
CLIK_CACHE_DIR="$tmp/warm" $run "$clik" warmup --op hist_equalize,pyr_down --channels 1 >"$tmp/warm1.txt" 2>&1
first=$?
CLIK_CACHE_DIR="$tmp/warm" $run "$clik" warmup --op hist_equalize,pyr_down --channels 1 >"$tmp/warm2.txt" 2>&1
if grep -q 'no OpenCL device' "$tmp/warm1.txt"; then
    check "warmup without a device" "$first" 0
else
    check "warmup compiles" "$first $(grep -o '[0-9]* programs compiled' "$tmp/warm1.txt" | grep -vc '^0 ')" "0 1"
    check "warmup again: all in the cache" "$(grep -o '[0-9]* programs compiled, [0-9]* already' "$tmp/warm2.txt")" \
        "0 programs compiled, $(grep -o '[0-9]* programs compiled' "$tmp/warm1.txt" | cut -d' ' -f1) already"
fi
if [ -w /dev/full ]; then
    expect_full 1 "--help to a full disk" -- $run "$clik" --help
    expect_full 1 "--version to a full disk" -- $run "$clik" --version
    expect_full 1 "subcommand help to a full disk" -- $run "$clik" equalize --help
    expect_full 1 "hist to a full disk" -- $run "$clik" hist "$sample" --device none
    expect_full 1 "hist --csv to a full disk" -- $run "$clik" hist "$sample" --csv --device none
    expect_full 1 "ssim to a full disk" -- $run "$clik" ssim "$tmp/grey.pgm" "$tmp/grey.pgm" --device none
    expect_full 1 "flowcmp to a full disk" -- $run "$clik" flowcmp "$tmp/right.flo" "$tmp/zero.flo"
    expect_full 1 "flow --gt to a full disk" -- $run "$clik" flow "$tmp/i0.pgm" "$tmp/i1.pgm" "$tmp/out.flo" --gt "$tmp/gt.flo" --device none
    expect_full 1 "devices to a full disk" -- $run "$clik" devices
    expect_full 1 "warmup --list to a full disk" -- $run "$clik" warmup --list
    expect_full 1 "conformance help to a full disk" -- $run "$clik" conformance --help
    if $run "$clik" conformance --help 2>/dev/null | grep -q -- --list; then
        expect_full 1 "conformance --list to a full disk" -- $run "$clik" conformance --list
    fi
else
    echo "skip stdout on a full disk (no /dev/full)"
fi
# YUV 4:2:0 frames: the photograph to each format and back, raw and .npy;
# cut files, odd sizes, a colour image to a picture, bad options refused.
for f in nv21 nv12 i420; do
    expect 0 "yuv: photograph to $f" -- $run "$clik" yuv "$photo" "$tmp/out.yuv" --format "$f"
    cp "$tmp/out.yuv" "$tmp/frame.yuv"
    expect 0 "yuv: $f to RGB" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.png" --size 512x512 --format "$f"
done
cat "$tmp/frame.yuv" "$tmp/frame.yuv" >"$tmp/two.yuv"
expect 0 "yuv: the second frame of two, to its luma" -- $run "$clik" yuv "$tmp/two.yuv" "$tmp/out.pgm" --size 512x512 --frame 1 --device none
expect 2 "yuv: a third frame of two" -- $run "$clik" yuv "$tmp/two.yuv" "$tmp/out.png" --size 512x512 --frame 2
head -c 393215 "$tmp/frame.yuv" >"$tmp/cut.yuv"
expect 1 "yuv: a frame cut short" -- $run "$clik" yuv "$tmp/cut.yuv" "$tmp/out.png" --size 512x512
expect 2 "yuv: a raw frame without --size" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.png"
expect 2 "yuv: an odd --size" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.png" --size 511x512
expect 1 "yuv: a --size that does not divide the file" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.png" --size 510x512
expect 0 "yuv: photograph to a frame array" -- $run "$clik" yuv "$photo" "$tmp/out.npy" --format nv12
cp "$tmp/out.npy" "$tmp/frame.npy"
expect 0 "yuv: a frame array to RGB" -- $run "$clik" yuv "$tmp/frame.npy" "$tmp/out.png" --format nv12 --space bt709
expect 0 "yuv: a grey image as a frame" -- $run "$clik" yuv "$sample" "$tmp/out.ppm"
expect 2 "yuv: a colour image to a picture" -- $run "$clik" yuv "$photo" "$tmp/out.png"
cmd=(yuv "$tmp/frame.yuv" "$tmp/out.png" --size 512x512)
refused "yuv" --format nv16 --format "" --space bt2020 --size 512 --size 512x --size x512 --frame -1 --frame two
# --resize: a frame resampled plane by plane, written as a frame or its RGB
expect 0 "yuv: an I420 frame resized" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.yuv" --size 512x512 --format i420 --resize 256x200 --method bicubic
check "yuv: the resized frame's bytes" "$(wc -c <"$tmp/out.yuv" | tr -d ' ')" 76800
expect 0 "yuv: an I420 frame resized to RGB" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.png" --size 512x512 --format i420 --resize 1024x768 --device none
expect 2 "yuv: --resize of a colour image" -- $run "$clik" yuv "$photo" "$tmp/out.yuv" --resize 256x256
refused "yuv" --resize 255x200 --resize 0x0 --resize 256 --method area
expect 2 "yuv: --method without --resize" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.png" --size 512x512 --method bicubic
expect 0 "yuv: an I420 frame upscaled by the LAPAR model" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.yuv" --size 512x512 --format i420 --upscale 2
check "yuv: the upscaled frame's bytes" "$(wc -c <"$tmp/out.yuv" | tr -d ' ')" 1572864
refused "yuv" --upscale 5 --upscale 1 --upscale two
expect 2 "yuv: --upscale with --resize" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/out.yuv" --size 512x512 --upscale 2 --resize 64x64
# --net: the luma by a LAPAR network, byte for byte clik upscale of the luma alone
expect 0 "yuv: a small I420 frame" -- $run "$clik" yuv "$tmp/frame.yuv" "$tmp/small.yuv" --size 512x512 --format i420 --resize 64x48
expect 0 "yuv: the small frame's luma" -- $run "$clik" yuv "$tmp/small.yuv" "$tmp/luma.pgm" --size 64x48 --format i420
if $run "$clik" upscale "$tmp/luma.pgm" "$tmp/lup.pgm" --scale 2 --method lapar-a >/dev/null 2>&1; then
    expect 0 "yuv: a frame upscaled by LAPAR-A" -- $run "$clik" yuv "$tmp/small.yuv" "$tmp/netup.yuv" --size 64x48 --format i420 --upscale 2 --net lapar-a
    check "yuv: --net's luma is clik upscale --method lapar-a of the luma" "$(head -c 12288 "$tmp/netup.yuv" | cksum)" "$(tail -c 12288 "$tmp/lup.pgm" | cksum)"
    check "yuv: --net's frame bytes" "$(wc -c <"$tmp/netup.yuv" | tr -d ' ')" 18432
else
    echo "skip yuv --net lapar-a (this build holds no LAPAR-A network)"
fi
expect 2 "yuv: --net without --upscale" -- $run "$clik" yuv "$tmp/small.yuv" "$tmp/out.yuv" --size 64x48 --net lapar-a
expect 1 "yuv: --net at a scale it was not released for" -- $run "$clik" yuv "$tmp/small.yuv" "$tmp/out.yuv" --size 64x48 --upscale 3 --net lapar-a
expect 1 "yuv: --net of a missing file" -- $run "$clik" yuv "$tmp/small.yuv" "$tmp/out.yuv" --size 64x48 --upscale 2 --net "$tmp/none.lapar"
$run "$clik" equalize "$sample" "$tmp/out.png" --device none >&- 2>"$tmp/stderr"
check "equalize with stdout closed (nothing to print)" "$? $(wc -c <"$tmp/stderr" | tr -d ' ')" "0 0"
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
