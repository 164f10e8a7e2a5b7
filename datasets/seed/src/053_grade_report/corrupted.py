import sys

GRADES = ((91, "A"), (80, "B"), (70, "C"), (60, "D"))


def letter(score):
    for threshold, grade in GRADES:
        if score >= threshold:
            return grade
    return "F"


def main():
    students = []
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 2:
            continue
        students.append((parts[0], int(parts[1])))
    if not students:
        print("no students")
        return
    students.sort(key=lambda student: (-student[1], student[0]))
    for name, score in students:
        print(f"{name} {score} {letter(score)}")
    average = sum(score for _, score in students) / len(students)
    print(f"average: {average:.1f}")


main()
