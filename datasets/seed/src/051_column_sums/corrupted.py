import sys


def main():
    data = sys.stdin.read().split()
    rows, cols = int(data[0]), int(data[1])
    values = [int(token) for token in data[2 : 2 + rows * cols]]
    sums = [0] * cols
    for index, value in enumerate(values):
        sums[index % cols] += value
    best = 0
    for col in range(1, cols - 1):
        if sums[col] >= sums[best]:
            best = col
    print(" ".join(str(total) for total in sums))
    print(best + 1)


main()
